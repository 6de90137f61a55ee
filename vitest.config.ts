// Two projects: `unit` (fast, beside the code) and `e2e` (headless Chromium against `rlm-studio
// serve`; needs `npm run build` first, which `npm test` does).
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: [
            '{app,training,host,electron,renderer,scripts}/**/*.test.{ts,tsx}',
            '*.test.ts',
          ],
          environment: 'node',
          testTimeout: 30_000,
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['e2e/**/*.e2e.test.ts'],
          environment: 'node',
          testTimeout: 60_000,
          hookTimeout: 60_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
