// Types of build-errors-page.mjs, for the tests that import it.
export const STYLE: string;
export function renderErrorsPage(markdown: string): string;
