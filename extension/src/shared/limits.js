// Limits shared by the service worker and the content script.

// Characters of Markdown in one page answer, its cross-origin frames included.
export const MAX_PAGE_CHARS = 1_000_000;
