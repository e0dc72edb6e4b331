/**
 * Layer and cycle rules for lib/ (issue 16), checked by `npm run lint` (`depcruise lib`).
 * The order is the one docs/architecture.md draws, top to bottom; a folder may import its own
 * layer and the layers below it, never one above. Type-only imports count (they couple too).
 */
const LAYERS = [
  ['cli', 'harness\\.ts'],
  ['report'],
  ['run'],
  ['knowforge', 'dualg'],
  ['answer'],
  ['pipeline', 'agents', 'remote-kb', 'serve-kb'],
  ['index', 'eval', 'bench', 'demo'],
  ['models', 'corpus', 'tf'],
  ['model-api'],
  ['util'],
];

const folder = (names) => `^lib/(${names.join('|')})(/|$)`;

/** One rule per layer: nothing in it imports a folder of a higher layer. */
const layerRules = LAYERS.slice(1).map((names, i) => ({
  name: `layer-${names.join('-').replace(/\\\\\.ts/g, '')}`,
  comment: `${names.join(', ')} may not import ${LAYERS.slice(0, i + 1)
    .flat()
    .join(', ')} (docs/architecture.md, "Layers")`,
  severity: 'error',
  from: { path: folder(names) },
  to: { path: folder(LAYERS.slice(0, i + 1).flat()) },
}));

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'no import circle in lib/ (split the shared part into its own file)',
      severity: 'error',
      from: { path: '^lib/' },
      to: { circular: true },
    },
    {
      name: 'methods-apart',
      comment: 'KnowForge never imports DualG: the methods share the answer layer (lib/answer) and the contract (lib/pipeline)',
      severity: 'error',
      from: { path: '^lib/knowforge/' },
      to: { path: '^lib/dualg/' },
    },
    {
      name: 'methods-apart-dualg',
      comment: 'DualG never imports KnowForge: the methods share the answer layer (lib/answer) and the contract (lib/pipeline)',
      severity: 'error',
      from: { path: '^lib/dualg/' },
      to: { path: '^lib/knowforge/' },
    },
    ...layerRules,
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)node_modules/|^dist/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    reporterOptions: {
      // `npm run graph`: one node per folder of lib/ (docs/architecture-graph.svg).
      archi: { collapsePattern: '^lib/([^/]+/|[^/]+\\.ts$)' },
    },
  },
};
