/**
 * Layer and cycle rules for lib/, scripts/ and bin/ (issues 16, 30), checked by `npm run lint`
 * (`depcruise lib scripts bin`). The order is the one docs/architecture.md draws, top to bottom; a
 * folder of lib/ may import its own layer and the layers below it, never one above. Type-only
 * imports count (they couple too).
 * The method floor is derived from the plug-ins (issue 30): every lib/<m>/ holding a manifest
 * (plugin.ts) is a method, checked the day its folder appears; its commands, reports and study
 * scripts (lib/<m>/commands/, lib/<m>/reports/, lib/<m>/scripts/) stand on the command floor.
 * Outside its folder (in lib/, scripts/ or bin/) only its manifest may be imported (lib/harness.ts,
 * the package's entry, reaches a method's notebook kit through it too), and no method imports another. The shared
 * scripts/ and bin/ stand above every layer; nothing in lib/ imports them.
 */
const fs = require('node:fs');
const path = require('node:path');

const LIB = path.join(__dirname, 'lib');
const readIfAny = (f) => (fs.existsSync(f) ? fs.readFileSync(f, 'utf8') : '');
/** The method folders: those whose plugin.ts exports a manifest (`export const plugin`). */
const METHODS = fs
  .readdirSync(LIB, { withFileTypes: true })
  .filter((d) => d.isDirectory() && /^export const plugin\b/m.test(readIfAny(path.join(LIB, d.name, 'plugin.ts'))))
  .map((d) => d.name)
  .sort();
/** A method's commands, reports and study scripts stand on the shell floor: they may run experiments and write tables. */
const COMMANDS = METHODS.flatMap((m) => [`${m}/commands`, `${m}/reports`, `${m}/scripts`]);

const LAYERS = [
  ['cli', 'harness\\.ts', ...COMMANDS],
  ['report'],
  ['run'],
  METHODS,
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
  name: `layer-${i + 2}-${names.join('-')}`,
  comment: `${names.join(', ')} may not import ${LAYERS.slice(0, i + 1)
    .flat()
    .join(', ')} (docs/architecture.md, "Layers")`,
  severity: 'error',
  // A manifest names its commands (loaded lazily, by the CLI only): plugin.ts may point up at its commands/.
  from: { path: folder(names), pathNot: [folder(COMMANDS), `^lib/(${METHODS.join('|')})/plugin\\.ts$`] },
  to: { path: folder(LAYERS.slice(0, i + 1).flat()) },
}));

/** Per method: nothing outside its folder (in lib/, scripts/, bin/) imports its internals (its manifest only), and it imports no other method. */
const methodRules = METHODS.flatMap((m) => [
  {
    name: `${m}-internals`,
    comment: `outside lib/${m}/ only its manifest (lib/${m}/plugin.ts) may be imported: the harness reaches a method through its plug-in`,
    severity: 'error',
    from: { path: '^(lib|scripts|bin)/', pathNot: `^lib/${m}/` },
    to: { path: `^lib/${m}/`, pathNot: `^lib/${m}/plugin\\.ts$` },
  },
  {
    name: `${m}-apart`,
    comment: `${m} imports no other method: methods share the answer layer (lib/answer) and the contract (lib/pipeline)`,
    severity: 'error',
    from: { path: `^lib/${m}/` },
    to: { path: folder(METHODS.filter((x) => x !== m)) },
  },
]);

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'no import circle in lib/, scripts/ or bin/ (split the shared part into its own file)',
      severity: 'error',
      from: { path: '^(lib|scripts|bin)/' },
      to: { circular: true },
    },
    {
      name: 'lib-not-scripts',
      comment: 'nothing in lib/ imports scripts/ or bin/: a helper scripts share lives in lib/ (e.g. lib/util/script-args.ts)',
      severity: 'error',
      from: { path: '^lib/' },
      to: { path: '^(scripts|bin)/' },
    },
    ...methodRules,
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
