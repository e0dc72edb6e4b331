/** Small Markdown corpora for the build tests (no PDF: no pdfjs start-up, no OCR). */
import * as fs from 'node:fs';
import * as path from 'node:path';

export const DOCS: Record<string, string> = {
  'alpha.md':
    '# Alpha Mills\n\nAlpha Mills is a paper maker founded in 1901 in Varnholt. Alpha Mills employs 420 people. Its chief executive is Ilse Moravec.\n\n## Products\n\nAlpha Mills makes recycled cardboard and kraft paper for shipping boxes.\n',
  'beta.md':
    '# Beta Rail\n\nBeta Rail operates freight trains between Varnholt and Quessel. Beta Rail was founded in 1923. It carries paper from Alpha Mills to the port of Quessel.\n\n| Route | Length |\n|---|---|\n| Varnholt-Quessel | 212 km |\n| Quessel-Lind | 88 km |\n',
  'gamma.md':
    '# Gamma Port\n\nThe port of Quessel is run by Gamma Port Authority. Gamma Port handles 3.1 million tonnes of cargo a year. Its harbour master is Tomas Eklund.\n',
  'delta.md': '# Delta Bank\n\nDelta Bank lends money to Beta Rail and Alpha Mills. Delta Bank is based in Lind. It was founded in 1877 by Oskar Delhagen.\n',
};

/** Write `files` (name -> content) into a fresh corpus folder. */
export function writeCorpus(dir: string, files: Record<string, string>): string {
  fs.mkdirSync(dir, { recursive: true });
  for (const [name, content] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), content);
  return dir;
}
