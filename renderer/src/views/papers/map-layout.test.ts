// Map geometry (corners, y up, out-of-range points kept inside) and stable colours per paper.
import { describe, expect, it } from 'vitest';
import { mapColourCount, mapPosition, paperColours } from './map-layout.ts';

const frame = { width: 200, height: 100, padding: 10 };

describe('mapPosition', () => {
  it('puts [-1, 1] on the padded frame with y pointing up', () => {
    expect(mapPosition(-1, -1, frame)).toEqual({ cx: 10, cy: 90 });
    expect(mapPosition(1, 1, frame)).toEqual({ cx: 190, cy: 10 });
    expect(mapPosition(0, 0, frame)).toEqual({ cx: 100, cy: 50 });
  });

  it('keeps a point outside [-1, 1] on the frame', () => {
    expect(mapPosition(3, -7, frame)).toEqual({ cx: 190, cy: 90 });
  });
});

describe('paperColours', () => {
  it('follows the listing, then the points, and wraps around the palette', () => {
    const listed = Array.from({ length: mapColourCount + 1 }, (_, i) => `p${String(i)}`);
    const colours = paperColours(listed, ['p3', 'extra']);
    expect(colours.get('p0')).toBe(0);
    expect(colours.get('p3')).toBe(3);
    expect(colours.get(`p${String(mapColourCount)}`)).toBe(0);
    expect(colours.get('extra')).toBe(1);
  });
});
