/**
 * Offline media reading (vision) and captioning: OCR stands in for a VLM. The
 * reading answer states where in the image the evidence is and gives a one-line
 * answer, using only what is written in the image (no outside knowledge), like
 * the read_media prompt asks of a real VLM.
 */
import type { ImagePart } from '../images';
import type { OcrLine, OcrResult, OcrService } from './ocr';
import type { CaptionTask, ImageRef, VisionTask } from './tasks';
import { entities, overlapScore, containsPhrase, stem, stemSet, tokens } from './text';

function toPart(ref: ImageRef): ImagePart {
  return { type: 'image', path: ref.path, dataUrl: ref.dataUrl, mime: ref.mime };
}

async function ocrOf(task: { image?: ImageRef; ocrText?: string }, ocr: OcrService | undefined): Promise<OcrResult | undefined> {
  if (task.ocrText !== undefined) {
    // Text given by the index (fragment.ocrText) keeps the layout's "<category>: <value>" pair lines: tag them back.
    const lines: OcrLine[] = task.ocrText.split('\n').map((t) => t.trim()).filter(Boolean)
      .map((text) => ({ text, confidence: 100, ...(/^[^:]{1,40}:\s*[-+$€£]?\d[\d.,]*\s*%?$/.test(text) ? { kind: 'pair' as const } : {}) }));
    return { text: lines.map((l) => l.text).join('\n'), lines, engine: 'given' };
  }
  if (!task.image || !ocr) return undefined;
  return ocr.read(toPart(task.image));
}

function where(line: OcrLine, idx: number, all: OcrLine[], height?: number): string {
  const vertical = (y: number, h: number) => (y < h / 3 ? 'top' : y < (2 * h) / 3 ? 'middle' : 'bottom');
  if (line.bbox && height) return `line ${idx + 1} of ${all.length} of the text in the image, ${vertical((line.bbox.y0 + line.bbox.y1) / 2, height)} part (pixels y ${line.bbox.y0}-${line.bbox.y1})`;
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
  const scored = lines
    .map((l, i) => ({ l, i, s: overlapScore(q, ents, l.text) + (namesCategory(l) ? 100 : 0) }))
    .sort((a, b) => b.s - a.s || a.i - b.i);
  const best = scored[0];
  if (best.s === 0) {
    return `Where: the whole image (${lines.length} line${lines.length === 1 ? '' : 's'} of text, none about the question).\nAnswer: The image does not show it; its text reads: ${lines.map((l) => l.text).join(' / ').slice(0, 200)}`;
  }
  return `Where: ${where(best.l, best.i, lines, res?.height)}.\nAnswer: ${best.l.text}`;
}

export async function captionReply(task: CaptionTask, ocr: OcrService | undefined): Promise<string> {
  const res = await ocrOf(task, ocr);
  const text = (res?.lines ?? []).map((l) => l.text).join(' / ');
  const what = task.label ?? 'An image';
  const about = task.caption?.trim() || (res?.lines[0]?.text ? `showing "${res.lines[0].text}"` : task.context ? `near "${task.context.slice(0, 80)}"` : 'without readable text');
  const caption = task.caption?.trim() ? `${what}: ${about}` : `${what} ${about}`;
  return `Caption: ${caption.replace(/\s+/g, ' ').trim()}\nText in image: ${text || 'none'}`;
}
