/**
 * Offline captioning (the caption role of lib/corpus/describe.ts): OCR stands in
 * for a VLM. The caption is what the document itself says (caption, label), or
 * the first line of text read from the image; the reply also lists that text.
 */
import { ocrOf, type OcrService } from './ocr-service';
import type { CaptionTask } from './tasks';

export async function captionReply(task: CaptionTask, ocr: OcrService | undefined): Promise<string> {
  const res = await ocrOf(task, ocr);
  const text = (res?.lines ?? []).map((l) => l.text).join(' / ');
  const what = task.label ?? 'An image';
  const about =
    task.caption?.trim() ||
    (res?.lines[0]?.text ? `showing "${res.lines[0].text}"` : task.context ? `near "${task.context.slice(0, 80)}"` : 'without readable text');
  const caption = task.caption?.trim() ? `${what}: ${about}` : `${what} ${about}`;
  return `Caption: ${caption.replace(/\s+/g, ' ').trim()}\nText in image: ${text || 'none'}`;
}
