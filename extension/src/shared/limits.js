// Limits shared by the service worker and the content script.

// Characters of Markdown in one page answer, its cross-origin frames included.
export const MAX_PAGE_CHARS = 1_000_000;

// Limits the daemon enforces too: written once, in src/limits.h, and read from there when the
// extension is built (extension/build.mjs resolves 'bb:limits.h').
export {
  BB_FIND_LIMIT_DEFAULT, BB_FIND_LIMIT_MAX, BB_FIND_LINE_MAX,
  BB_CONSOLE_MAX_ENTRIES, BB_CONSOLE_MAX_CHARS, BB_CONSOLE_MESSAGE_MAX, BB_CONSOLE_LIMIT_DEFAULT,
  BB_NETWORK_MAX_ENTRIES, BB_NETWORK_LIMIT_DEFAULT, BB_NETWORK_URL_MAX,
  BB_SCREENSHOT_MAX_WIDTH_DEFAULT, BB_SCREENSHOT_WIDTH_MAX, BB_SCREENSHOT_QUALITY_DEFAULT,
  BB_SCREENSHOT_FULL_HEIGHT_MAX, BB_SCREENSHOT_HASH_TABS, BB_MARKS_MAX,
} from 'bb:limits.h';
