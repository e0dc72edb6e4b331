/**
 * The demo world: a seeded, fictional, multimodal multi-hop QA world (companies,
 * people, cities, products, institutes) rendered into Markdown/HTML/PDF documents
 * with tables, charts and worked examples, plus questions with gold answers,
 * documents, pages and modalities. The harness's main job runs on it and every
 * test uses it as a fixture. See data/demo/README.md.
 */
export { generateWorld, planWorld } from './generate';
export { writeDemoWorld, ensureDemoWorld, defaultDemoDir, readDemoManifest, demoGeneratorHash } from './write';
export type { EnsureDemoOptions, EnsuredDemoWorld } from './write';
export { demoFragments, documentFragments, describeChart, FRAGMENTS_PER_DOC } from './fragments';
export type { DemoFragmentsOptions, DemoFragments } from './fragments';
export { renderMarkdown, renderHtml } from './render-text';
export { renderPdf, FIXED_PDF_DATE } from './render-pdf';
export { renderChart } from './chart-render';
export { drawnTextOf, layoutChart } from './chart-layout';
export { PRESETS, PRESET_NAMES, DEFAULT_SEED, DEMO_GENERATOR_VERSION, resolveDemoOptions, demoOptionsHash, isPresetName } from './options';
export { NOT_ANSWERABLE } from './questions';
export { NEVER_STATED } from './filler';
export type * from './types';
