/**
 * Offline stand-in for the micro-vision role (image -> micro facts, lib/dualg/graph/micro-vision.ts):
 * no pixels are read; the facts are the ones the offline micro rules take from the asset's OCR text
 * and caption (chart labels, names), in the reply shape the real prompt asks for. A graph built with
 * microImages = "vision" on the offline backend therefore holds the same facts as the "ocr" graph.
 */
import { imageFacts } from '../graph/micro';
import type { MicroVisionTask } from './tasks';

export function microVisionFacts(task: MicroVisionTask): { facts: { subject: string; relation: string; object: string }[] } {
  const asset = { id: task.fragmentId, docId: '', kind: 'image' as const, text: '', section: [], ordinal: 0, attached: [] };
  const raw = imageFacts({ ...asset, label: task.label, caption: task.caption, ocrText: task.ocrText }, task.docTitle);
  return { facts: raw.slice(0, task.maxFacts ?? 24).map((f) => ({ subject: f.u, relation: f.r, object: f.v })) };
}
