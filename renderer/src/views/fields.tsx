// The views' small form fields: a labelled text (or number) input and a labelled choice.

/** The dataset file formats a file field may name, as a Choice lists them. */
export const datasetFormatChoices = [
  { value: 'skyrl', label: 'SkyRL rows' },
  { value: 'ours', label: 'ours' },
  { value: 'qasper', label: 'QASPER' },
] as const;

/** Sets one field of a form's values. */
export type SetField = (key: string) => (value: string) => void;

export function TextField(props: {
  label: string;
  title?: string;
  value: string | undefined;
  placeholder?: string;
  onChange: (value: string) => void;
  testId?: string;
  /** A number field (a whole number from 1 up unless `min` says otherwise). */
  number?: { min?: string; step?: string };
}) {
  return (
    <label title={props.title}>
      {props.label}
      <input
        value={props.value}
        placeholder={props.placeholder}
        {...(props.number
          ? { type: 'number', min: props.number.min ?? '1', step: props.number.step ?? '1' }
          : {})}
        onChange={(e) => {
          props.onChange(e.target.value);
        }}
        data-testid={props.testId}
      />
    </label>
  );
}

export function Choice(props: {
  label: string;
  value: string | undefined;
  options: readonly { value: string; label: string }[];
  onChange: (value: string) => void;
  testId?: string;
}) {
  return (
    <label>
      {props.label}
      <select
        value={props.value}
        data-testid={props.testId}
        onChange={(e) => {
          props.onChange(e.target.value);
        }}
      >
        {props.options.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
    </label>
  );
}
