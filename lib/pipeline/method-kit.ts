/**
 * A method's notebook kit (issue 30): what a method offers notebooks beyond its series (its report
 * helpers, its configuration rows), declared by its manifest (`Plugin.notebookKit`) and reached as
 * `kf.method('<name>')` through the loaded plug-ins, so the notebooks' facade (lib/harness.ts)
 * imports no method's internals.
 *
 *   const ku = kf.method('knowforge').capUsageRows(runs);
 *
 * Types: a manifest adds its kit's type to `MethodKits` (declaration merging), so a built-in
 * method's kit is typed by name; a kit of a method loaded through KF_PLUGINS is typed by the caller
 * (`kf.method<MyKit>('mine')`) or by its own `declare module` of this file.
 */
import { didYouMean } from '../util/did-you-mean';
import { KfError } from '../util/errors';
import { loadedPlugins } from './plugins';

/** The kits' types by method name, filled by the manifests (`declare module '<this file>' { interface MethodKits { ... } }`). */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- empty here on purpose: each manifest merges its kit in
export interface MethodKits {}

/** The notebook kit of a loaded method (its module loads on the first call; KF_PLUGINS is read again). */
export function method<K extends keyof MethodKits>(name: K): MethodKits[K];
export function method<T extends object = Record<string, unknown>>(name: string): T;
export function method(name: string): object {
  const plugins = loadedPlugins();
  const p = plugins.find((x) => x.name === name);
  if (!p) {
    const names = plugins.map((x) => x.name);
    const near = didYouMean(name, names);
    throw new KfError(
      'method_unknown',
      `no loaded method is called "${name}"`,
      near ? `did you mean "${near}"?` : `loaded: ${names.join(', ')}; a method outside lib/ loads through KF_PLUGINS=<its plugin module>`,
      { concerns: name },
    );
  }
  if (!p.notebookKit) {
    const withKit = plugins.filter((x) => x.notebookKit).map((x) => x.name);
    throw new KfError(
      'method_no_kit',
      `method ${name} offers notebooks no kit (its manifest declares no notebookKit)`,
      `methods with a kit: ${withKit.join(', ') || 'none'}`,
      {
        concerns: name,
      },
    );
  }
  return p.notebookKit();
}
