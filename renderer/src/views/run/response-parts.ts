// A model response cut into prose and fenced code blocks, for the inspector's rendered view (the raw
// view shows the text as it came). An unclosed fence (a response still streaming) runs to the end.

export type ResponsePart =
  { kind: 'text'; text: string } | { kind: 'code'; language: string; code: string };

const fence = /^(`{3,}|~{3,})[ \t]*([\w+-]*)[^\n]*$/;

export function responseParts(response: string): ResponsePart[] {
  const parts: ResponsePart[] = [];
  const lines = response.split('\n');
  let prose: string[] = [];
  const flushProse = () => {
    const text = prose.join('\n').trim();
    if (text !== '') parts.push({ kind: 'text', text });
    prose = [];
  };
  for (let index = 0; index < lines.length; index++) {
    const open = fence.exec(lines[index] ?? '');
    if (!open) {
      prose.push(lines[index] ?? '');
      continue;
    }
    flushProse();
    const marker = open[1] ?? '```';
    const code: string[] = [];
    index++;
    while (index < lines.length && !(lines[index] ?? '').trimEnd().startsWith(marker)) {
      code.push(lines[index] ?? '');
      index++;
    }
    parts.push({
      kind: 'code',
      language: open[2] !== undefined && open[2] !== '' ? open[2] : 'text',
      code: code.join('\n'),
    });
  }
  flushProse();
  return parts;
}
