// The Train forms' small fields: a labelled text input and a labelled choice.

/** Sets one field of a form's values. */
export type SetField = (key: string) => (value: string) => void;

export function TextField(props: {
  label: string;
  title?: string;
  value: string | undefined;
  placeholder?: string;
  onChange: (value: string) => void;
  testId?: string;
}) {
  return (
    <label title={props.title}>
      {props.label}
      <input
        value={props.value}
        placeholder={props.placeholder}
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
