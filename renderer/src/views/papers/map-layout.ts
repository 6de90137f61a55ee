// The map's geometry and colours: engine coordinates in [-1, 1] to SVG units (y up), and one
// categorical colour per paper in a stable order, reused when there are more papers than colours.

export const mapColourCount = 10;

export interface MapFrame {
  width: number;
  height: number;
  padding: number;
}

export function mapPosition(x: number, y: number, frame: MapFrame): { cx: number; cy: number } {
  const clamp = (v: number) => Math.min(1, Math.max(-1, v));
  const innerWidth = frame.width - 2 * frame.padding;
  const innerHeight = frame.height - 2 * frame.padding;
  return {
    cx: frame.padding + ((clamp(x) + 1) / 2) * innerWidth,
    cy: frame.padding + ((1 - clamp(y)) / 2) * innerHeight,
  };
}

/** Papers in the given order (the set's listing), then any others as the points name them. */
export function paperColours(
  listedIds: readonly string[],
  pointIds: readonly string[],
): Map<string, number> {
  const colours = new Map<string, number>();
  for (const id of [...listedIds, ...pointIds]) {
    if (!colours.has(id)) colours.set(id, colours.size % mapColourCount);
  }
  return colours;
}
