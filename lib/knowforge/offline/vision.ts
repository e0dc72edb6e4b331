/**
 * Offline media reading (the vision role, KnowForge's read_media): OCR stands in
 * for a VLM (captioning, its corpus-side sibling: lib/corpus/offline/caption.ts). The
 * reading answer states where in the image the evidence is and gives a one-line
 * answer, using only what is written in the image (no outside knowledge), like
 * the read_media prompt asks of a real VLM.
 */
import { ocrOf, type OcrLine, type OcrService } from '../../corpus/offline/ocr-service';
import type { VisionTask } from './tasks';
import { entities, overlapScore, containsPhrase, stem, stemSet, tokens } from '../../util/text-rules';

function where(line: OcrLine, idx: number, all: OcrLine[], height?: number): string {
  const vertical = (y: number, h: number) => (y < h / 3 ? 'top' : y < (2 * h) / 3 ? 'middle' : 'bottom');
  if (line.bbox && height)
    return `line ${idx + 1} of ${all.length} of the text in the image, ${vertical((line.bbox.y0 + line.bbox.y1) / 2, height)} part (pixels y ${line.bbox.y0}-${line.bbox.y1})`;
  return `line ${idx + 1} of ${all.length} of the text in the image`;
}

export async function visionReply(task: VisionTask, ocr: OcrService | undefined): Promise<string> {
  const res = await ocrOf(task, ocr);
  const lines = res?.lines ?? [];
  if (!lines.length) {
    const why = res?.error ? `OCR could not read the image (${res.error})` : 'no legible text was found in the image';
    return `Where: nowhere: ${why}.\nAnswer: The image does not show the answer in readable text.`;
  }
  const q = stemSet(task.question);
  const ents = new Set(entities(task.question).flatMap((e) => tokens(e).map(stem)));
  // A chart's "<category>: <value>" pair line whose category the question names (a year, a label) answers
  // it directly: prefer it over lines (titles) that merely share more words with the question.
  const namesCategory = (l: OcrLine) => l.kind === 'pair' && containsPhrase(task.question, l.text.split(':')[0].trim());
  const scored = lines.map((l, i) => ({ l, i, s: overlapScore(q, ents, l.text) + (namesCategory(l) ? 100 : 0) })).sort((a, b) => b.s - a.s || a.i - b.i);
  const best = scored[0];
  if (best.s === 0) {
    return `Where: the whole image (${lines.length} line${lines.length === 1 ? '' : 's'} of text, none about the question).\nAnswer: The image does not show it; its text reads: ${lines
      .map((l) => l.text)
      .join(' / ')
      .slice(0, 200)}`;
  }
  return `Where: ${where(best.l, best.i, lines, res?.height)}.\nAnswer: ${best.l.text}`;
}
