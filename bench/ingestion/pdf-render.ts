/** Kept for imports of the old path: the PDF timings live in bench/pdf-render.ts. */
export { measurePdfRendering, type PdfRenderResult } from '../pdf-render';
