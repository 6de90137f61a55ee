// The set's passages placed in 2D by text similarity ('papers.map'), as an SVG scatter coloured by
// paper with a legend. Hovering a point shows its passage; clicking opens it in the reader. With an
// embedding model set in Settings the map is drawn from sentence embeddings, and the user can
// switch to TF-IDF and back; a model that fails shows its named reason over the TF-IDF map.
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import type { CommandRequest, MapPoint, PassageMap } from '../../../../app/api/index.ts';
import { useApi } from '../../api/ApiContext.tsx';
import { useApiEvent } from '../../api/useApiEvent.ts';
import { mapPosition, paperColours, type MapFrame } from './map-layout.ts';
import { papersHref } from './route.ts';
import { useEngineQuery } from './use-engine-query.ts';
import { countOf } from '../../format/count.ts';

export interface PaperMapProps {
  set: string;
  /** Paper ids to titles, in the set's order (it fixes the colours). */
  titles: ReadonlyMap<string, string>;
}

const frame: MapFrame = { width: 800, height: 520, padding: 16 };

type MapMethodChoice = NonNullable<CommandRequest<'papers.map'>['method']>;

function methodLabel(map: PassageMap): string {
  return map.method === 'embeddings-pca' ? `embeddings-pca, ${map.model ?? 'model'}` : map.method;
}

/** TF-IDF or embeddings, shown only when a model is set (else TF-IDF is all there is). */
function MethodSwitch(props: { map: PassageMap; onChoose: (method: MapMethodChoice) => void }) {
  const { map, onChoose } = props;
  if (map.embeddingModel === null) return null;
  const choices: { method: MapMethodChoice; label: string }[] = [
    { method: 'embeddings-pca', label: `Embeddings (${map.embeddingModel})` },
    { method: 'tfidf-pca', label: 'TF-IDF' },
  ];
  return (
    <div className="paper-map-methods" role="group" aria-label="Map method">
      {choices.map(({ method, label }) => (
        <button
          key={method}
          type="button"
          className="button"
          aria-pressed={map.method === method && !map.fallback}
          data-testid={`map-method-${method}`}
          onClick={() => {
            onChoose(method);
          }}
        >
          {label}
        </button>
      ))}
    </div>
  );
}

// A model set or removed in Settings redraws the map.
function usePassageMap(set: string) {
  const api = useApi();
  const [method, setMethod] = useState<MapMethodChoice>('auto');
  const [settingsGeneration, setSettingsGeneration] = useState(0);
  useApiEvent('settings.changed', () => {
    setSettingsGeneration((n) => n + 1);
  });
  const map = useEngineQuery(
    JSON.stringify(['map', set, method, settingsGeneration]),
    () => api.call('papers.map', { set, method }),
    { refreshOn: 'papers.setsChanged' },
  );
  return { method, setMethod, map };
}

function passageCounts(points: readonly MapPoint[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const point of points) counts.set(point.paperId, (counts.get(point.paperId) ?? 0) + 1);
  return counts;
}

export function PaperMap({ set, titles }: PaperMapProps) {
  const navigate = useNavigate();
  const { method, setMethod, map } = usePassageMap(set);
  const [hovered, setHovered] = useState<MapPoint | null>(null);
  const [emphasis, setEmphasis] = useState<string | null>(null);

  if (map.status === 'failed') {
    return (
      <p className="papers-failure" role="alert">
        The map could not be made. {map.failure.name}: {map.failure.message}
      </p>
    );
  }
  if (map.status !== 'ready') {
    return (
      <p className="papers-muted">
        {method === 'tfidf-pca'
          ? 'Placing the passages…'
          : 'Placing the passages (embedding them the first time a model sees them)…'}
      </p>
    );
  }
  const { points } = map.value;
  if (points.length === 0) return <p className="papers-muted">No passages to place yet.</p>;

  const colours = paperColours(
    [...titles.keys()],
    points.map((point) => point.paperId),
  );
  const open = (point: MapPoint) =>
    void navigate(
      papersHref({ set, paperId: point.paperId, hl: { start: point.start, end: point.end } }),
    );

  return (
    <div className="paper-map" data-testid="paper-map">
      <MapHead map={map.value} onChoose={setMethod} />
      <div className="paper-map-body">
        <MapPlot
          {...{ set, points, colours, titles, hovered, emphasis }}
          onHover={setHovered}
          onOpen={open}
        />
        <aside className="paper-map-side">
          <MapLegend
            {...{ set, colours, titles }}
            counts={passageCounts(points)}
            onEmphasis={setEmphasis}
          />
          <MapPreview hovered={hovered} titles={titles} />
        </aside>
      </div>
    </div>
  );
}

interface MapPlotProps {
  set: string;
  points: readonly MapPoint[];
  colours: ReadonlyMap<string, number>;
  titles: ReadonlyMap<string, string>;
  hovered: MapPoint | null;
  emphasis: string | null;
  onHover: (point: MapPoint | null) => void;
  onOpen: (point: MapPoint) => void;
}

function MapPlot({
  set,
  points,
  colours,
  titles,
  hovered,
  emphasis,
  onHover,
  onOpen,
}: MapPlotProps) {
  return (
    <svg
      className="paper-map-plot"
      viewBox={`0 0 ${String(frame.width)} ${String(frame.height)}`}
      role="img"
      aria-label={`Map of ${String(points.length)} passages of ${set}`}
      onMouseLeave={() => {
        onHover(null);
      }}
    >
      <rect
        className="paper-map-frame"
        x={0.5}
        y={0.5}
        width={frame.width - 1}
        height={frame.height - 1}
        rx={6}
      />
      {points.map((point) => {
        const { cx, cy } = mapPosition(point.x, point.y, frame);
        const dimmed = emphasis !== null && emphasis !== point.paperId;
        const active = hovered === point;
        return (
          <circle
            key={`${point.paperId}-${String(point.start)}`}
            cx={cx}
            cy={cy}
            r={active ? 7 : 4.5}
            className={`map-point map-colour-${String(colours.get(point.paperId) ?? 0)}${dimmed ? ' dimmed' : ''}${active ? ' active' : ''}`}
            data-testid="map-point"
            data-paper={point.paperId}
            onMouseEnter={() => {
              onHover(point);
            }}
            onClick={() => {
              onOpen(point);
            }}
          >
            <title>{`${titles.get(point.paperId) ?? point.paperId}\n${point.preview}`}</title>
          </circle>
        );
      })}
    </svg>
  );
}

function MapLegend(props: {
  set: string;
  colours: ReadonlyMap<string, number>;
  titles: ReadonlyMap<string, string>;
  counts: ReadonlyMap<string, number>;
  onEmphasis: (paperId: string | null) => void;
}) {
  const { set, colours, titles, counts, onEmphasis } = props;
  return (
    <ul className="paper-map-legend" aria-label="Papers">
      {[...colours].map(([paperId, colour]) => (
        <li
          key={paperId}
          onMouseEnter={() => {
            onEmphasis(paperId);
          }}
          onMouseLeave={() => {
            onEmphasis(null);
          }}
        >
          <span className={`map-swatch map-colour-${String(colour)}`} aria-hidden="true" />
          <span>
            <Link to={papersHref({ set, paperId })} className="papers-link">
              {titles.get(paperId) ?? paperId}
            </Link>
            <span className="papers-muted"> · {countOf(counts.get(paperId) ?? 0, 'passage')}</span>
          </span>
        </li>
      ))}
    </ul>
  );
}

function MapHead({
  map,
  onChoose,
}: {
  map: PassageMap;
  onChoose: (method: MapMethodChoice) => void;
}) {
  const { points, fallback } = map;
  return (
    <>
      <div className="paper-map-head">
        <p className="papers-muted" data-testid="map-method">
          {points.length.toLocaleString()} passages placed by text similarity ({methodLabel(map)}).
          Hover a point to read it; click to open it.
        </p>
        <MethodSwitch map={map} onChoose={onChoose} />
      </div>
      {fallback && (
        <p className="papers-failure" role="alert" data-testid="map-fallback">
          Embeddings could not be used, so TF-IDF drew this map. {fallback.name}: {fallback.message}
        </p>
      )}
    </>
  );
}

function MapPreview({
  hovered,
  titles,
}: {
  hovered: MapPoint | null;
  titles: ReadonlyMap<string, string>;
}) {
  return (
    <div className="paper-map-preview" data-testid="map-preview" aria-live="polite">
      {hovered ? (
        <>
          <strong>{titles.get(hovered.paperId) ?? hovered.paperId}</strong>
          <p>{hovered.preview}</p>
        </>
      ) : (
        <p className="papers-muted">Hover a point to read its passage.</p>
      )}
    </div>
  );
}
