/**
 * The file node:cluster runs in each worker process of `kf serve kb --workers N` and `kf bench serve-kb
 * --workers N` (lib/serve-kb/worker.ts does the work). It lives in the CLI because a worker builds the
 * models router of an index built with an embedding endpoint, as the single-process command does.
 */
import cluster from 'node:cluster';
import { readModelsConfigFile } from '../models/config-file';
import { createModelRouter } from '../models/router';
import { WORKER_ENV, runKbWorker } from '../serve-kb/worker';

/** This file, as node:cluster runs it (.js compiled, .ts under tsx). */
export const SERVE_KB_WORKER_FILE = __filename;

/** The models router of a models config file (`kf serve kb --models`). */
export const routerOf = (file: string) => createModelRouter(readModelsConfigFile(file), {});

if (cluster.isWorker && process.env[WORKER_ENV]) void runKbWorker(routerOf);
