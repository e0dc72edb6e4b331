/**
 * Loading pdfjs-dist 5.6 on Node 20: the legacy ESM build, imported dynamically
 * from our CommonJS code, with the package's own font/cmap/wasm/icc folders
 * (plain paths with a trailing '/'; nothing is fetched) and eval disabled.
 * Opening maps pdfjs's exceptions onto KfErrors a person can act on.
 */
import * as path from 'node:path';
import { KfError, errorMessage } from '../util/errors';

export type PdfJs = typeof import('pdfjs-dist/legacy/build/pdf.mjs', { with: { 'resolution-mode': 'import' } });
export type PdfDocument = import('pdfjs-dist/legacy/build/pdf.mjs', { with: { 'resolution-mode': 'import' } }).PDFDocumentProxy;
export type PdfPage = import('pdfjs-dist/legacy/build/pdf.mjs', { with: { 'resolution-mode': 'import' } }).PDFPageProxy;

let loading: Promise<PdfJs> | undefined;

export function pdfjsDir(): string {
  return path.dirname(require.resolve('pdfjs-dist/package.json'));
}

export function loadPdfjs(): Promise<PdfJs> {
  loading ??= (import('pdfjs-dist/legacy/build/pdf.mjs') as Promise<PdfJs>).catch((e) => {
    loading = undefined;
    throw new KfError('pdfjs_unavailable', `cannot load pdfjs-dist: ${errorMessage(e)}`, 'run npm install (pdfjs-dist@5.6.205 is a dependency)', { cause: e });
  });
  return loading;
}

/** Open a PDF from bytes. Throws KfError pdf_encrypted / pdf_corrupt / pdf_unreadable. */
export async function openPdf(bytes: Buffer, what: string, password?: string): Promise<PdfDocument> {
  const pdfjs = await loadPdfjs();
  const dir = pdfjsDir();
  const task = pdfjs.getDocument({
    // pdfjs transfers (detaches) the buffer it is given: hand it a copy.
    data: new Uint8Array(bytes),
    password,
    standardFontDataUrl: path.join(dir, 'standard_fonts') + '/',
    cMapUrl: path.join(dir, 'cmaps') + '/',
    cMapPacked: true,
    wasmUrl: path.join(dir, 'wasm') + '/',
    iccUrl: path.join(dir, 'iccs') + '/',
    isEvalSupported: false,
    useSystemFonts: false,
    verbosity: 0,
  });
  try {
    return await task.promise;
  } catch (e) {
    const name = (e as { name?: string })?.name ?? '';
    if (name === 'PasswordException') {
      throw new KfError('pdf_encrypted', `${what} is password-protected`, 'remove the password (e.g. qpdf --decrypt) and ingest the decrypted copy', {
        concerns: what,
        cause: e,
      });
    }
    if (name === 'InvalidPDFException' || name === 'FormatError') {
      throw new KfError('pdf_corrupt', `${what} is not a readable PDF (${errorMessage(e)})`, 'the file is damaged or not a PDF: re-download or re-export it', {
        concerns: what,
        cause: e,
      });
    }
    throw new KfError(
      'pdf_unreadable',
      `${what} could not be opened by pdfjs (${errorMessage(e)})`,
      'check the file; if other viewers open it, report the pdfjs failure',
      { concerns: what, cause: e },
    );
  }
}
