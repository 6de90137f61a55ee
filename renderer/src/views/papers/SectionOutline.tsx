// A paper's sections as a clickable outline; the references section is marked, levels indent.
import type { Section } from '../../../../app/api/index.ts';

export interface SectionOutlineProps {
  sections: readonly Section[];
  onOpen: (section: Section) => void;
}

export function SectionOutline({ sections, onOpen }: SectionOutlineProps) {
  return (
    <nav className="paper-outline" aria-label="Sections" data-testid="paper-outline">
      <h2 className="papers-subheading">Sections</h2>
      {sections.length === 0 ? (
        <p className="papers-muted">No headings were found in this paper.</p>
      ) : (
        <ol>
          {sections.map((section) => (
            <li key={`${String(section.start)}-${section.title}`}>
              <button
                type="button"
                className={`outline-link level-${String(Math.min(section.level, 3))}`}
                data-testid="paper-section"
                onClick={() => {
                  onOpen(section);
                }}
              >
                {section.title}
                {section.references && <span className="papers-badge">refs</span>}
              </button>
            </li>
          ))}
        </ol>
      )}
    </nav>
  );
}
