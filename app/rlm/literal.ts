// Parses the answer written in FINAL(...): JSON, or the Python literals models write (single
// quotes, True/False/None, tuples, trailing commas). Anything else stays the plain string.
export type Literal = null | boolean | number | string | Literal[] | { [key: string]: Literal };

class Cursor {
  index = 0;
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
  skip(): void {
    while (this.index < this.text.length && /\s/.test(this.text[this.index] ?? '')) this.index++;
  }
  peek(): string {
    this.skip();
    return this.text[this.index] ?? '';
  }
  take(expected: string): void {
    if (this.peek() !== expected) throw new SyntaxError(`expected '${expected}' at ${this.index}`);
    this.index++;
  }
}

function parseString(cursor: Cursor): string {
  const quote = cursor.peek();
  const triple = cursor.text.startsWith(quote.repeat(3), cursor.index);
  cursor.index += triple ? 3 : 1;
  let out = '';
  for (;;) {
    const ch = cursor.text[cursor.index];
    if (ch === undefined) throw new SyntaxError('unterminated string');
    if (triple ? cursor.text.startsWith(quote.repeat(3), cursor.index) : ch === quote) {
      cursor.index += triple ? 3 : 1;
      return out;
    }
    if (ch === '\\') {
      const next = cursor.text[cursor.index + 1] ?? '';
      const escapes: Record<string, string> = {
        n: '\n',
        t: '\t',
        r: '\r',
        '\\': '\\',
        "'": "'",
        '"': '"',
        '0': '\0',
      };
      if (next === 'u') {
        out += String.fromCharCode(
          parseInt(cursor.text.slice(cursor.index + 2, cursor.index + 6), 16),
        );
        cursor.index += 6;
        continue;
      }
      out += escapes[next] ?? `\\${next}`;
      cursor.index += 2;
      continue;
    }
    out += ch;
    cursor.index++;
  }
}

function parseSequence(cursor: Cursor, close: string): Literal[] {
  const items: Literal[] = [];
  cursor.index++;
  while (cursor.peek() !== close) {
    items.push(parseValue(cursor));
    if (cursor.peek() === ',') cursor.index++;
    else if (cursor.peek() !== close) throw new SyntaxError(`expected ',' or '${close}'`);
  }
  cursor.index++;
  return items;
}

function parseValue(cursor: Cursor): Literal {
  const ch = cursor.peek();
  if (ch === '"' || ch === "'") {
    let text = parseString(cursor);
    // Adjacent string literals concatenate, as in Python.
    while (cursor.peek() === '"' || cursor.peek() === "'") text += parseString(cursor);
    return text;
  }
  if (ch === '[') return parseSequence(cursor, ']');
  if (ch === '(') return parseSequence(cursor, ')');
  if (ch === '{') {
    cursor.index++;
    const object: Record<string, Literal> = {};
    while (cursor.peek() !== '}') {
      const key = parseValue(cursor);
      cursor.take(':');
      object[typeof key === 'string' ? key : JSON.stringify(key)] = parseValue(cursor);
      if (cursor.peek() === ',') cursor.index++;
    }
    cursor.index++;
    return object;
  }
  const word = /^(True|False|None|true|false|null|-?\d+(\.\d+)?([eE][+-]?\d+)?)/.exec(
    cursor.text.slice(cursor.index),
  );
  if (!word) throw new SyntaxError(`unexpected '${ch}' at ${cursor.index}`);
  cursor.index += word[0].length;
  switch (word[0]) {
    case 'True':
    case 'true':
      return true;
    case 'False':
    case 'false':
      return false;
    case 'None':
    case 'null':
      return null;
    default:
      return Number(word[0]);
  }
}

/** The value of a FINAL(...) argument: a list stays a list; unparseable text stays text. */
export function parseAnswerLiteral(text: string): Literal {
  const trimmed = text.trim();
  try {
    const cursor = new Cursor(trimmed);
    const value = parseValue(cursor);
    cursor.skip();
    if (cursor.index === trimmed.length) return value;
  } catch {
    // Not a literal: the answer is the text itself.
  }
  return trimmed;
}
