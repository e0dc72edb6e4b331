/** The third method's command: `kf third hello` lists what its manifest declares. */
import type { CommandSpec } from '../../lib/pipeline/command';

export const command: CommandSpec = {
  name: 'third hello',
  group: 'dev',
  summary: 'The third (toy) method says what it adds: its configuration and retriever',
  examples: ['kf third hello'],
  async run() {
    console.log('third method: configuration T1 over retriever third-overlap');
  },
};
