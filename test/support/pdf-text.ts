/**
 * Reads rendered PDFs back with poppler-utils (pdftotext, pdfinfo, pdftoppm): a PDF reader
 * independent of the pdf-lib that wrote them. Poppler is required: when it is missing, every
 * helper throws with the install command, so the tests that use them fail instead of skipping.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

let checked: Promise<void> | undefined;

/** Resolves when pdftotext answers `-v`; rejects with how to install poppler-utils otherwise. */
export function requirePoppler(): Promise<void> {
  checked ??= run('pdftotext', ['-v']).then(
    () => undefined,
    (error: NodeJS.ErrnoException) => {
      throw new Error(
        `pdftotext from poppler-utils is required to check the rendered PDFs but could not be run (${error.code ?? error.message}). ` +
          'Install it: apt-get install -y poppler-utils (Debian/Ubuntu), brew install poppler (macOS).',
      );
    },
  );
  return checked;
}

async function withPdfFile<T>(pdf: Uint8Array, use: (file: string, dir: string) => Promise<T>): Promise<T> {
  await requirePoppler();
  const dir = await mkdtemp(path.join(os.tmpdir(), 'pdf-text-'));
  try {
    const file = path.join(dir, 'document.pdf');
    await writeFile(file, pdf);
    return await use(file, dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const BIG = { maxBuffer: 64 * 1024 * 1024 };

/** pdfinfo's fields ('Pages', 'Page size', 'Title', ...). */
export function pdfInfo(pdf: Uint8Array): Promise<Record<string, string>> {
  return withPdfFile(pdf, async (file) => {
    const { stdout } = await run('pdfinfo', [file], BIG);
    const fields: Record<string, string> = {};
    for (const line of stdout.split('\n')) {
      const match = /^([^:]+):\s*(.*)$/.exec(line);
      if (match) fields[match[1].trim()] = match[2].trim();
    }
    return fields;
  });
}

/** The text of each page, in reading order (pdftotext without -layout), as UTF-8. */
export function pdfPagesText(pdf: Uint8Array): Promise<string[]> {
  return withPdfFile(pdf, async (file) => {
    const { stdout } = await run('pdftotext', ['-enc', 'UTF-8', file, '-'], BIG);
    const pages = stdout.split('\f');
    if (pages.length > 1 && pages[pages.length - 1].trim() === '') pages.pop();
    return pages;
  });
}

/** Whitespace collapsed to single spaces, for substring checks across line breaks. */
export function collapse(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** Every whitespace removed, for checking long codes (a CUFE) that the layout wraps. */
export function squeeze(text: string): string {
  return text.replace(/\s+/g, '');
}

export type PdfWord = { page: number; text: string; xMin: number; yMin: number; xMax: number; yMax: number };
export type PdfPageBox = { page: number; width: number; height: number; words: PdfWord[] };

/** Words with their bounding boxes in points, top-left origin (pdftotext -bbox). */
export function pdfWords(pdf: Uint8Array): Promise<PdfPageBox[]> {
  return withPdfFile(pdf, async (file) => {
    const { stdout } = await run('pdftotext', ['-bbox', '-enc', 'UTF-8', file, '-'], BIG);
    const pages: PdfPageBox[] = [];
    const unescape = (text: string) =>
      text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&');
    for (const line of stdout.split('\n')) {
      const page = /<page width="([\d.]+)" height="([\d.]+)">/.exec(line);
      if (page) {
        pages.push({ page: pages.length + 1, width: Number(page[1]), height: Number(page[2]), words: [] });
        continue;
      }
      const word = /<word xMin="([\d.-]+)" yMin="([\d.-]+)" xMax="([\d.-]+)" yMax="([\d.-]+)">(.*)<\/word>/.exec(line);
      if (word && pages.length > 0) {
        const current = pages[pages.length - 1];
        current.words.push({
          page: current.page,
          xMin: Number(word[1]),
          yMin: Number(word[2]),
          xMax: Number(word[3]),
          yMax: Number(word[4]),
          text: unescape(word[5]),
        });
      }
    }
    return pages;
  });
}

export type GrayImage = { width: number; height: number; pixels: Uint8Array };

/**
 * Rasterises a rectangle of one page in grayscale with pdftoppm. The rectangle is in points
 * with a top-left origin; `pixelsPerPoint` sets the resolution (72 dpi × pixelsPerPoint).
 */
export function rasterize(
  pdf: Uint8Array,
  page: number,
  area: { x: number; y: number; width: number; height: number },
  pixelsPerPoint: number,
): Promise<GrayImage> {
  return withPdfFile(pdf, async (file, dir) => {
    const crop = [area.x, area.y, area.width, area.height].map((value) => String(Math.round(value * pixelsPerPoint)));
    const output = path.join(dir, 'raster');
    await run('pdftoppm', [
      '-gray', '-r', String(72 * pixelsPerPoint), '-f', String(page), '-l', String(page),
      '-x', crop[0], '-y', crop[1], '-W', crop[2], '-H', crop[3], '-singlefile', file, output,
    ], BIG);
    return parsePgm(await readFile(`${output}.pgm`));
  });
}

function parsePgm(data: Buffer): GrayImage {
  // P5 <width> <height> <maxval> then one byte per pixel.
  const header = /^P5\s+(\d+)\s+(\d+)\s+(\d+)\s/.exec(data.subarray(0, 64).toString('latin1'));
  if (!header) throw new Error('pdftoppm did not produce a binary PGM image');
  const width = Number(header[1]);
  const height = Number(header[2]);
  return { width, height, pixels: new Uint8Array(data.subarray(header[0].length, header[0].length + width * height)) };
}
