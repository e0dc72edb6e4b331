/**
 * Notebooks in a real browser, the way a user opens them: `kf jupyter` (the README's command) starts
 * the classic Jupyter server on loopback with the tslab kernel spec it writes (absolute paths; the
 * server's PATH has no node_modules/.bin), and headless Chromium opens
 *  - a notebook executed by the harness (kf's runNotebook): it is Trusted, and its table (Markdown)
 *    and figure (SVG) are rendered;
 *  - an untrusted copy of it: the PNG and plain-text fallbacks still show the figure and the table;
 *  - a fresh notebook: a TypeScript cell executes on the tslab kernel started by the server.
 * Skipped with the reason when jupyter notebook, Chromium, nbclient or the compiled library is missing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { findChromium } from '../../lib/report/figure';
import { makeNotebook } from '../../lib/report/ipynb';
import { findJupyterPython, runNotebook } from '../../lib/report/notebooks';
import { kernelSpecProblem, registeredTslabSpec } from '../../lib/report/tslab-kernelspec';
import { errorMessage } from '../../lib/util/errors';
import { repoRoot } from '../../lib/util/paths';
import { ownScratch } from '../_shared/scratch';

const ext = path.extname(__filename);
const HARNESS = path.join(repoRoot(), 'dist', 'lib', 'harness.js');

function whyNot(): string | undefined {
  const v = spawnSync('jupyter', ['notebook', '--version'], { encoding: 'utf8', timeout: 60_000 });
  if (v.status !== 0) return 'jupyter notebook is not installed (bash scripts/setup.sh installs jupyter-notebook)';
  if (!findChromium()) return 'Chromium is not installed (apt-get install chromium)';
  try {
    findJupyterPython();
  } catch (e) {
    return errorMessage(e);
  }
  if (!fs.existsSync(HARNESS)) return `the library is not compiled (${HARNESS} is missing): npm run build`;
  return undefined;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

async function waitForServer(url: string, child: ChildProcess, log: () => string, limitMs: number): Promise<void> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    if (child.exitCode !== null) assert.fail(`kf jupyter exited (${child.exitCode}) before serving:\n${log()}`);
    try {
      const r = await fetch(url);
      if (r.ok) return;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) assert.fail(`the Jupyter server did not answer ${url} within ${limitMs / 1000} s:\n${log()}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Stop every kernel the server started (opening a notebook page starts one). */
async function shutDownKernels(base: string, token: string): Promise<void> {
  const r = await fetch(`${base}/api/kernels?token=${token}`);
  const kernels = (await r.json()) as { id: string }[];
  for (const k of kernels) await fetch(`${base}/api/kernels/${k.id}?token=${token}`, { method: 'DELETE' });
}

const TABLE_CELL = `kf.kit.showTable([{ config: 'S4', f1: 0.5 }, { config: 'M5-browser-check', f1: 0.75 }], { caption: 'browser check', decimals: 2 });`;
const FIGURE_CELL = `await kf.kit.showFigure(kf.barFigure({ categories: ['S4', 'M5'], series: [{ name: 'f1', values: [50, 75] }], title: 'browser check figure', yTitle: 'F1' }));\nawait kf.kit.closeFigures();`;

/** Open a notebook page and wait until Jupyter has rendered its cells. */
async function openNotebook(page: Page, base: string, token: string, name: string): Promise<void> {
  await page.goto(`${base}/notebooks/${name}?token=${token}`, { waitUntil: 'domcontentloaded', timeout: 60_000 });
  await page.waitForFunction(
    () => (window as unknown as { Jupyter?: { notebook?: { _fully_loaded?: boolean } } }).Jupyter?.notebook?._fully_loaded === true,
    undefined,
    {
      timeout: 60_000,
    },
  );
}

test(
  'Jupyter in headless Chromium: an executed notebook renders its table and figure (trusted, and with fallbacks untrusted); a fresh one runs a TypeScript cell',
  { timeout: 6 * 60_000 },
  async (t) => {
    const why = whyNot();
    if (why) {
      console.log(`# skipped: ${why}`);
      t.skip(why);
      return;
    }
    const root = ownScratch('kf-nb-browser-');
    const nbs = path.join(root, 'nbs');
    fs.mkdirSync(nbs);
    // Jupyter's state (kernel specs, signatures, config, runtime files) in this test's folder only.
    const jupyterEnv = {
      JUPYTER_DATA_DIR: path.join(root, 'data'),
      JUPYTER_CONFIG_DIR: path.join(root, 'config'),
      JUPYTER_RUNTIME_DIR: path.join(root, 'runtime'),
      IPYTHONDIR: path.join(root, 'ipython'),
      // jupyter_core 5 also searches the user's site folder (~/.local/share/jupyter), where setup.sh's spec lives.
      PYTHONNOUSERSITE: '1',
    };
    const saved = { ...process.env };
    Object.assign(process.env, jupyterEnv);
    let server: ChildProcess | undefined;
    let browser: Browser | undefined;
    let base: string | undefined;
    const token = 'kf-browser-check';
    try {
      // The kernel spec kf jupyter writes: absolute Node and tslab.
      const install = spawnSync(process.execPath, [path.join(repoRoot(), 'bin', 'kf.js'), 'jupyter', '--install-kernel'], {
        env: { ...process.env, KF_TSX: ext === '.ts' ? '1' : '' },
        encoding: 'utf8',
        timeout: 120_000,
      });
      assert.equal(install.status, 0, install.stderr);
      // The spec the server will use (written here, or a startable one already registered in a system folder).
      const registered = registeredTslabSpec(findJupyterPython(), process.env);
      assert.ok(registered, `a tslab kernel spec is registered after kf jupyter --install-kernel:\n${install.stderr}`);
      const spec = registered.spec;
      assert.ok(path.isAbsolute(spec.argv[0]) && path.isAbsolute(spec.argv[1]), `absolute kernel argv: ${spec.argv.join(' ')}`);
      assert.equal(kernelSpecProblem(spec), undefined, `the registered spec (${registered.dir}) starts from a shell`);

      // A notebook executed by the harness (signed trusted by the driver), and an untrusted copy of it.
      const src = path.join(root, 'check.ipynb');
      const imp = `import * as kf from ${JSON.stringify(HARNESS.replace(/\.js$/, ''))};`;
      fs.writeFileSync(
        src,
        JSON.stringify(
          makeNotebook([
            { type: 'code', source: `${imp}\n${TABLE_CELL}` },
            { type: 'code', source: FIGURE_CELL },
          ]),
        ),
      );
      const run = await runNotebook(src, { outFile: path.join(nbs, 'executed.ipynb'), cwd: nbs, timeoutS: 240 });
      assert.equal(run.trusted, true, `the executed copy is signed: ${run.trustError ?? ''}`);
      const untrusted = JSON.parse(fs.readFileSync(run.output, 'utf8')) as { metadata: Record<string, unknown> };
      untrusted.metadata.kf_copy = 'unsigned';
      fs.writeFileSync(path.join(nbs, 'untrusted.ipynb'), JSON.stringify(untrusted));
      fs.writeFileSync(
        path.join(nbs, 'fresh.ipynb'),
        JSON.stringify(makeNotebook([{ type: 'code', source: `const n: number = 6 * 7;\nconsole.log('fresh-cell', n);` }])),
      );

      // The server as the README starts it; PATH without node_modules/.bin (a plain shell).
      const port = await freePort();
      const shellPath = (saved.PATH ?? '')
        .split(path.delimiter)
        .filter((p) => !p.includes('node_modules'))
        .join(path.delimiter);
      let log = '';
      server = spawn(
        process.execPath,
        [path.join(repoRoot(), 'bin', 'kf.js'), 'jupyter', '--dir', nbs, '--no-browser', '--ip', '127.0.0.1', '--port', String(port), '--token', token],
        { env: { ...process.env, PATH: shellPath, KF_TSX: ext === '.ts' ? '1' : '' }, stdio: ['ignore', 'pipe', 'pipe'], detached: true },
      );
      server.stdout!.on('data', (d) => (log += d));
      server.stderr!.on('data', (d) => (log += d));
      base = `http://127.0.0.1:${port}`;
      await waitForServer(`${base}/api/status?token=${token}`, server, () => log, 90_000);

      const { chromium } = require('playwright-core') as typeof import('playwright-core');
      browser = await chromium.launch({ executablePath: findChromium()!, args: ['--no-sandbox', '--disable-gpu'], headless: true, timeout: 60_000 });
      const page = await browser.newPage();

      await openNotebook(page, base, token, 'executed.ipynb');
      assert.equal((await page.textContent('#notification_trusted'))?.trim(), 'Trusted');
      assert.ok(await page.locator('.output_markdown table td', { hasText: 'M5-browser-check' }).count(), 'the Markdown table is rendered');
      assert.ok(await page.locator('.output_svg svg').count(), 'the SVG figure is rendered');

      await openNotebook(page, base, token, 'untrusted.ipynb');
      assert.equal((await page.textContent('#notification_trusted'))?.trim(), 'Not Trusted');
      assert.ok(await page.locator('.output_png img').count(), 'untrusted: the PNG fallback of the figure is shown');
      assert.ok(await page.locator('.output_area', { hasText: 'M5-browser-check' }).count(), 'untrusted: the table is shown (Markdown or its text)');

      // The kernels those two pages started are not needed: stopped, so the fresh notebook's kernel starts on a quieter machine.
      await shutDownKernels(base, token);
      await openNotebook(page, base, token, 'fresh.ipynb');
      await page.waitForSelector('#kernel_indicator_icon.kernel_idle_icon', { timeout: 180_000 });
      await page.evaluate(() => (window as unknown as { Jupyter: { notebook: { execute_all_cells(): void } } }).Jupyter.notebook.execute_all_cells());
      try {
        await page.locator('.output_area', { hasText: 'fresh-cell 42' }).first().waitFor({ timeout: 120_000 });
      } catch (e) {
        const note = await page.textContent('#notification_kernel').catch(() => '');
        assert.fail(`the TypeScript cell did not print (kernel notification: "${note?.trim()}"): ${errorMessage(e)}\n${log.slice(-2000)}`);
      }
    } finally {
      await browser?.close().catch(() => undefined);
      // Kernels first (the server leaves them running on SIGTERM, holding its output pipes open), then the server.
      if (base) await shutDownKernels(base, token).catch(() => undefined);
      if (server?.pid && server.exitCode === null) {
        // kf jupyter and the jupyter server it started: one process group.
        try {
          process.kill(-server.pid, 'SIGTERM');
        } catch {
          /* already gone */
        }
        await new Promise((r) => {
          server!.once('exit', r);
          setTimeout(r, 20_000).unref();
        });
      }
      server?.stdout?.destroy();
      server?.stderr?.destroy();
      process.env = saved;
      fs.rmSync(root, { recursive: true, force: true });
    }
  },
);
