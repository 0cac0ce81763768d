// The handler table: one handler per command of the daemon's tool catalog (src/tools.c). Its
// keys are the capabilities announced in `hello`; tests/integration/catalog.test.mjs checks they
// equal the commands of GET /api/tools. Adding a tool = one catalog entry in src/tools.c + one
// line here (and its handler in the cmd-*.js file of its concern).
// A handler takes the command (the daemon's `command` data, tabId filled in by the queue) and a
// context ({ signal }: aborted when the daemon cancels the call, see cancel.js) and returns { message, result, pageTabId, alwaysPage? } or throws (a CommandError, see errors.js).
import { openUrl, goBack, goForward, reloadTab } from './cmd-navigation.js';
import { listTabsCommand, switchTab, closeTab } from './cmd-tabs.js';
import { getPage, waitFor } from './cmd-page.js';
import { takeScreenshot } from './cmd-screenshot.js';
import { findText, consoleMessages, networkRequests } from './cmd-observe.js';
import { clickAction, typeAction, pressKeyAction, scrollAction, selectAction } from './cmd-input.js';
import { handleDialog } from './cmd-dialogs.js';
import { hoverAction, dragAction } from './cmd-pointer.js';
import { fillFormAction, uploadFileAction, resizeWindow } from './cmd-forms.js';
import { CommandError } from './errors.js';

const HANDLERS = {
  open_url: openUrl,
  back: goBack,
  forward: goForward,
  reload: reloadTab,
  list_tabs: listTabsCommand,
  switch_tab: switchTab,
  close_tab: closeTab,
  get_page: getPage,
  screenshot: takeScreenshot,
  wait_for: waitFor,
  click: clickAction,
  type: typeAction,
  press_key: pressKeyAction,
  scroll: scrollAction,
  select_option: selectAction,
  handle_dialog: handleDialog,
  find: findText,
  console_messages: consoleMessages,
  network_requests: networkRequests,
  hover: hoverAction,
  drag: dragAction,
  upload_file: uploadFileAction,
  fill_form: fillFormAction,
  resize: resizeWindow,
};

export const CAPABILITIES = Object.keys(HANDLERS);

// The commands that only read a tab: they do not make it the agent's (driven.js), so a person's
// tab the agent only looked at keeps showing its own dialogs. Every other command does.
export const READS_ONLY = new Set(['list_tabs', 'switch_tab', 'get_page', 'screenshot', 'wait_for', 'find', 'console_messages', 'network_requests']);

// Run the handler of cmd.command; an unknown command is an error naming the supported ones.
export async function execute(cmd, ctx = {}) {
  const c = cmd.command;
  if (typeof c !== 'string' || !Object.hasOwn(HANDLERS, c)) {
    throw new CommandError(`unknown command "${String(c).slice(0, 60)}" (supported: ${CAPABILITIES.join(', ')})`);
  }
  return HANDLERS[c](cmd, ctx);
}
