/**
 * PDF rendering with pdfkit. One section per page (a page break before every
 * section after the first), so section.page is the printed page; a section that
 * does not fit its page is a generator bug and throws rather than shifting pages.
 * Fixed metadata (dates, producer) make the bytes identical across runs.
 *
 * Conventions: title and section headings in larger Helvetica-Bold lines; tables
 * drawn as ruled grids preceded by the line `Table N: caption`; figures embedded as
 * PNG followed by the line `Figure N: caption`; worked examples are paragraphs
 * starting `Worked example:`.
 */
import PDFDocument from 'pdfkit';
import type { DemoDoc } from './types';

/** Every demo PDF claims this creation date: a timestamp would break byte identity. */
export const FIXED_PDF_DATE = new Date(Date.UTC(2024, 0, 1, 0, 0, 0));

const MARGIN = 56;
const BODY = 11;

export function renderPdf(doc: DemoDoc, png: (asset: string) => Buffer): Promise<Buffer> {
  const pdf = new PDFDocument({
    size: 'A4',
    margins: { top: MARGIN, bottom: MARGIN, left: MARGIN, right: MARGIN },
    compress: true,
    info: {
      Title: doc.title,
      Author: 'kf-harness demo world',
      Subject: 'Fictional document generated for multimodal multi-hop QA tests',
      Creator: 'kf-harness demo generator',
      Producer: 'kf-harness (pdfkit)',
      CreationDate: FIXED_PDF_DATE,
      ModDate: FIXED_PDF_DATE,
    },
  });
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    pdf.on('data', (c: Buffer) => chunks.push(c));
    pdf.on('end', () => resolve(Buffer.concat(chunks)));
    pdf.on('error', reject);
  });
  let pages = 1;
  pdf.on('pageAdded', () => {
    pages++;
  });
  const width = pdf.page.width - 2 * MARGIN;

  doc.sections.forEach((s, si) => {
    if (si > 0) pdf.addPage();
    if (pages !== s.page) throw new Error(`demo PDF ${doc.id}: section "${s.heading}" starts on page ${pages}, planned ${s.page} (layout overflow)`);
    if (si === 0) pdf.font('Helvetica-Bold').fontSize(20).fillColor('#000000').text(doc.title, { width }).moveDown(0.6);
    pdf.font('Helvetica-Bold').fontSize(14).fillColor('#000000').text(s.heading, { width }).moveDown(0.4);
    for (const b of s.blocks) {
      switch (b.kind) {
        case 'paragraph':
        case 'example':
          pdf.font('Helvetica').fontSize(BODY).text(b.text, { width, lineGap: 2 }).moveDown(0.6);
          break;
        case 'table':
          pdf.font('Helvetica-Oblique').fontSize(10).text(`${b.label}: ${b.caption}`, { width }).moveDown(0.3);
          drawTable(pdf, b.header, b.rows, width);
          pdf.moveDown(0.8);
          break;
        case 'figure': {
          // Without explicit coordinates pdfkit places the image at the cursor and moves the cursor below it.
          pdf.x = MARGIN;
          pdf.image(png(b.asset), { width });
          pdf.moveDown(0.3);
          pdf.font('Helvetica-Oblique').fontSize(10).text(`${b.label}: ${b.caption}`, MARGIN, pdf.y, { width }).moveDown(0.8);
          break;
        }
      }
    }
    if (pages !== s.page) throw new Error(`demo PDF ${doc.id}: section "${s.heading}" overflowed onto page ${pages} (planned ${s.page})`);
  });
  pdf.end();
  return done;
}

function drawTable(pdf: PDFKit.PDFDocument, header: string[], rows: string[][], width: number): void {
  const cols = header.length;
  // First column narrower for two-column attribute tables.
  const widths = cols === 2 ? [width * 0.4, width * 0.6] : header.map(() => width / cols);
  const pad = 4;
  const x0 = MARGIN;
  let y = pdf.y;
  const rule = (yy: number) =>
    pdf
      .moveTo(x0, yy)
      .lineTo(x0 + width, yy)
      .lineWidth(0.7)
      .strokeColor('#444444')
      .stroke();
  const row = (cells: string[], bold: boolean) => {
    pdf.font(bold ? 'Helvetica-Bold' : 'Helvetica').fontSize(10);
    const h = Math.max(...cells.map((c, i) => pdf.heightOfString(c, { width: widths[i] - 2 * pad }))) + 2 * pad;
    let x = x0;
    cells.forEach((c, i) => {
      pdf.text(c, x + pad, y + pad, { width: widths[i] - 2 * pad });
      x += widths[i];
    });
    y += h;
    rule(y);
  };
  rule(y);
  row(header, true);
  for (const r of rows) row(r, false);
  pdf.x = MARGIN;
  pdf.y = y + 2;
}
