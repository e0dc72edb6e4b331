/**
 * Stage-label middleware: a model handed out for one stage keeps routing, caching
 * and counting as that stage even when a caller mislabels the request.
 */
import type { ChatMiddleware } from '../wrap-model';

export function stageLabelMiddleware(stage: string): ChatMiddleware {
  return {
    name: 'stage-label',
    wrapChat: ({ next, req, signal }) => next(req.stage === stage ? req : { ...req, stage }, signal),
  };
}
