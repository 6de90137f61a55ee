// One PDF page: a fixed-size frame always (so the scroller keeps its length), and while it is near
// the viewport, its canvas and pdf.js text layer (selectable text). Leaving the neighbourhood or
// changing scale cancels the render and text layer and frees the canvas.
import { useEffect, useRef, useState, type CSSProperties, type Ref } from 'react';
import type { HighlightBox } from '../../../../../app/api/index.ts';
import { describeFailure, type Failure } from '../failure.ts';
import type { HighlightTone } from '../highlight-tones.ts';
import { isPdfjsCancellation, type Pdfjs, type PDFPageProxy } from './pdfjs.ts';
import './text-layer.css';

export interface PageBox {
  key: string;
  tone: HighlightTone;
  box: HighlightBox;
}

export interface PdfPageProps {
  pdfjs: Pdfjs;
  page: PDFPageProxy;
  index: number;
  /** CSS pixels per PDF unit. */
  scale: number;
  /** Size at scale 1, in PDF units. */
  size: { width: number; height: number };
  near: boolean;
  boxes: readonly PageBox[];
  frameRef: Ref<HTMLDivElement>;
}

/** The scale last drawn at, and why drawing failed if it did. */
type Drawn = { scale: number; failure: Failure | undefined } | null;

/**
 * Draws the page on its canvas and its text layer while it is near the view, again at each new
 * scale; anything drawn is cancelled and cleared when it goes out of reach.
 */
function usePageDrawing(
  pdfjs: PdfPageProps['pdfjs'],
  page: PdfPageProps['page'],
  scale: number,
  near: boolean,
) {
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const textRef = useRef<HTMLDivElement>(null);
  const [drawn, setDrawn] = useState<Drawn>(null);

  useEffect(() => {
    const canvas = canvasRef.current;
    const text = textRef.current;
    if (!near || !canvas || !text) return;
    const viewport = page.getViewport({ scale });
    const ratio = window.devicePixelRatio || 1;
    canvas.width = Math.floor(viewport.width * ratio);
    canvas.height = Math.floor(viewport.height * ratio);
    const render = page.render({
      canvas,
      viewport,
      transform: ratio === 1 ? undefined : [ratio, 0, 0, ratio, 0, 0],
    });
    const textLayer = new pdfjs.TextLayer({
      textContentSource: page.streamTextContent(),
      container: text,
      viewport,
    });
    const fail = (error: unknown) => {
      // Our own cancel (scrolled away, rescaled, unmounted) is not a failure to show.
      if (!isPdfjsCancellation(error)) setDrawn({ scale, failure: describeFailure(error) });
    };
    render.promise.then(() => {
      setDrawn({ scale, failure: undefined });
    }, fail);
    textLayer.render().catch(fail);
    return () => {
      render.cancel();
      textLayer.cancel();
      text.replaceChildren();
      canvas.width = 0;
      canvas.height = 0;
    };
  }, [pdfjs, page, scale, near]);

  return { canvasRef, textRef, drawn };
}

export function PdfPage({ pdfjs, page, index, scale, size, near, boxes, frameRef }: PdfPageProps) {
  const { canvasRef, textRef, drawn } = usePageDrawing(pdfjs, page, scale, near);
  const current = near && drawn?.scale === scale ? drawn : null;
  const failure = current?.failure;
  const frameStyle = {
    width: `${String(size.width * scale)}px`,
    height: `${String(size.height * scale)}px`,
    '--total-scale-factor': String(scale),
    '--scale-round-x': '1px',
    '--scale-round-y': '1px',
  } as CSSProperties;

  return (
    <div
      ref={frameRef}
      className="pdf-page"
      data-testid="pdf-page"
      data-page={index}
      data-drawn={current !== null && !failure}
      style={frameStyle}
      aria-label={`Page ${String(index + 1)}`}
      role="group"
    >
      <canvas ref={canvasRef} className="pdf-page-canvas" aria-hidden="true" />
      {!current && <span className="pdf-page-placeholder">Page {index + 1}</span>}
      {failure && (
        <p className="pdf-page-failure" role="alert">
          Page {index + 1} could not be drawn. {failure.name}: {failure.message}
        </p>
      )}
      {boxes.map(({ key, tone, box }, boxIndex) => (
        <div
          key={`${key}-${String(boxIndex)}`}
          className={`pdf-highlight tone-${tone}`}
          data-testid="pdf-highlight"
          data-page={index}
          data-span={key}
          style={{
            left: box.x * scale,
            top: box.y * scale,
            width: box.width * scale,
            height: box.height * scale,
          }}
        />
      ))}
      <div ref={textRef} className="textLayer" />
    </div>
  );
}
