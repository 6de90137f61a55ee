// A page-side counter for the browser tests: how few elements with a test id the page ever showed.
// Its own file, under e2e/tsconfig.json's DOM types: bench/ui.ts imports harness.ts under the root
// tsconfig, which has none.
import type { Page } from 'playwright-core';

/**
 * Watches how many elements with `testId` the page shows from now on; `fewest()` is the smallest
 * count at any moment (e.g. a list that must never be blanked while it reloads).
 */
export async function watchCount(
  page: Page,
  testId: string,
): Promise<{ fewest: () => Promise<number> }> {
  const key = `fewest:${testId}`;
  await page.evaluate(
    ({ testId, key }) => {
      const seen = window as unknown as Record<string, number>;
      const count = () => document.querySelectorAll(`[data-testid="${testId}"]`).length;
      seen[key] = count();
      new MutationObserver(() => {
        seen[key] = Math.min(seen[key] ?? Infinity, count());
      }).observe(document.body, { childList: true, subtree: true });
    },
    { testId, key },
  );
  return {
    fewest: () =>
      page.evaluate((key) => (window as unknown as Record<string, number>)[key] ?? -1, key),
  };
}
