/**
 * PDFs for the tests, written with pdfkit at test time (small, deterministic,
 * nothing binary committed): a text report (headings, image + caption, aligned
 * table with caption, worked example, two columns, running footer, blank page),
 * a scanned page (image only -> OCR), an encrypted file.
 */
import PDFDocument from 'pdfkit';
import { createCanvas } from '@napi-rs/canvas';

const FIXED = new Date(Date.UTC(2024, 0, 1));

function collect(doc: PDFKit.PDFDocument): Promise<Buffer> {
  const chunks: Buffer[] = [];
  return new Promise((resolve, reject) => {
    doc.on('data', (c: Buffer) => chunks.push(c));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
}

/** A small bar chart PNG (no text: OCR of it finds nothing). */
function chartPng(): Buffer {
  const c = createCanvas(300, 180);
  const g = c.getContext('2d');
  g.fillStyle = '#ffffff';
  g.fillRect(0, 0, 300, 180);
  g.fillStyle = '#2255aa';
  [60, 120, 90, 150].forEach((h, i) => g.fillRect(30 + i * 65, 170 - h, 40, h));
  return c.toBuffer('image/png');
}

/** A PNG with printed words, for OCR. */
export function textPng(lines: string[], width = 1000, lineHeight = 90): Buffer {
  const c = createCanvas(width, 60 + lines.length * lineHeight);
  const g = c.getContext('2d');
  g.fillStyle = '#ffffff';
  g.fillRect(0, 0, c.width, c.height);
  g.fillStyle = '#000000';
  g.font = '56px sans-serif';
  lines.forEach((l, i) => g.fillText(l, 40, 90 + i * lineHeight));
  return c.toBuffer('image/png');
}

const LOREM =
  'The harbor of Velm handles grain, timber and salt for the whole valley. Ships arrive from the northern coast every week, ' +
  'and the port authority records every arrival in a ledger that goes back to the founding of the town. ';

export function reportPdf(): Promise<Buffer> {
  const doc = new PDFDocument({ size: 'A4', margin: 56, compress: false, info: { Title: 'Velm Harbor Report', CreationDate: FIXED, ModDate: FIXED } });
  const done = collect(doc);
  // A running footer (dropped by the ingester); margin 0 so pdfkit does not start a new page for it.
  const footer = (n: number) => {
    doc.page.margins.bottom = 0;
    doc.font('Helvetica').fontSize(8).text(`Velm Harbor Report - page ${n}`, 56, 800, { width: 480, lineBreak: false });
  };
  // Page 1: title, numbered headings, paragraphs, an image followed by its caption.
  doc.font('Helvetica-Bold').fontSize(20).text('Velm Harbor Report', 56, 56);
  doc.moveDown(0.5);
  doc.font('Helvetica-Bold').fontSize(14).text('1 Introduction');
  doc.moveDown(0.3);
  doc
    .font('Helvetica')
    .fontSize(10)
    .text(LOREM + LOREM, { width: 480 });
  doc.moveDown(0.8);
  doc.font('Helvetica-Bold').fontSize(14).text('2 Traffic');
  doc.moveDown(0.3);
  doc.font('Helvetica').fontSize(10).text('The chart below shows the ships calling at Velm in four recent years.', { width: 480 });
  doc.moveDown(0.5);
  doc.image(chartPng(), 56, doc.y, { width: 240 });
  doc.y += 150;
  doc.font('Helvetica-Oblique').fontSize(10).text('Figure 1: Ships calling at Velm per year', 56, doc.y, { width: 480 });
  doc.moveDown(0.8);
  doc.font('Helvetica').fontSize(10).text('Traffic grew in every year shown, with the largest rise in the last year.', { width: 480 });
  footer(1);
  // Page 2: a table of aligned columns under its caption, then a worked example.
  doc.addPage();
  doc.font('Helvetica-Bold').fontSize(14).text('3 Cargo', 56, 56);
  doc.moveDown(0.3);
  doc.font('Helvetica').fontSize(10).text('Cargo volumes by type are listed in the table below.', { width: 480 });
  doc.moveDown(0.5);
  doc.font('Helvetica-Oblique').fontSize(10).text('Table 1: Cargo by type', { width: 480 });
  let y = doc.y + 8;
  const rows = [
    ['Cargo', 'Tonnes', 'Share'],
    ['Grain', '12,400', '41%'],
    ['Timber', '9,100', '30%'],
    ['Salt', '8,800', '29%'],
  ];
  for (const [i, r] of rows.entries()) {
    doc.font(i === 0 ? 'Helvetica-Bold' : 'Helvetica').fontSize(10);
    doc.text(r[0], 56, y, { lineBreak: false });
    doc.text(r[1], 250, y, { lineBreak: false });
    doc.text(r[2], 400, y, { lineBreak: false });
    y += 16;
  }
  doc
    .font('Helvetica')
    .fontSize(10)
    .text('Worked example: a ship of 2,000 tonnes pays 0.5 credits per tonne, so it pays 2,000 x 0.5 = 1,000 credits.', 56, y + 20, { width: 480 });
  footer(2);
  // Page 3: two columns.
  doc.addPage();
  doc.font('Helvetica-Bold').fontSize(14).text('4 Columns', 56, 56);
  const left = 'LEFTSTART ' + LOREM.repeat(3) + 'LEFTEND';
  const right = 'RIGHTSTART ' + LOREM.repeat(3) + 'RIGHTEND';
  doc.font('Helvetica').fontSize(10).text(left, 56, 90, { width: 220 });
  doc.font('Helvetica').fontSize(10).text(right, 316, 90, { width: 220 });
  footer(3);
  // Page 4: intentionally blank.
  doc.addPage();
  doc.end();
  return done;
}

/** One page holding only an image of printed text (no text layer). */
export function scanPdf(lines = ['HARBOR TARIFFS 2024', 'Ships pay five credits', 'per tonne of cargo']): Promise<Buffer> {
  const doc = new PDFDocument({ size: [420, 240], margin: 0, compress: false, info: { CreationDate: FIXED, ModDate: FIXED } });
  const done = collect(doc);
  doc.image(textPng(lines), 0, 0, { width: 420, height: 240 });
  doc.end();
  return done;
}

export function encryptedPdf(): Promise<Buffer> {
  const doc = new PDFDocument({ size: 'A5', userPassword: 'secret', ownerPassword: 'owner', info: { CreationDate: FIXED, ModDate: FIXED } });
  const done = collect(doc);
  doc.font('Helvetica').fontSize(12).text('Top secret harbor tariffs.');
  doc.end();
  return done;
}
