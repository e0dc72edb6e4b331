/**
 * An old-style pipeline module (no manifest, an exported `register()`), named in the deprecated
 * KF_PIPELINE_MODULES: proves the alias still loads it through the plug-in loader.
 */
import { registerPipeline } from '../../lib/run/registry';
import type { Pipeline } from '../../lib/pipeline/types';

export function register(): void {
  const p: Pipeline = {
    name: 'legacy-fake',
    description: 'old-style pipeline module for the KF_PIPELINE_MODULES alias test',
    needsIndex: false,
    async run() {
      return { prediction: 'FINAL ANSWER: legacy', finalAnswer: 'legacy', counters: { rounds: 1 } };
    },
  };
  registerPipeline('legacy-fake', () => p, { family: 'test', replace: true, description: p.description });
}
