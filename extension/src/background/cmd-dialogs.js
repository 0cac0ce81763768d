// Handler of handle_dialog: how the next JavaScript dialog on a tab is answered (see dialogs.js).
import { resolveTab } from './tabs.js';
import { setDialogPolicy } from './dialogs.js';
import { CommandError } from './errors.js';

export async function handleDialog(cmd) {
  const tab = await resolveTab(cmd.tabId);
  if (typeof cmd.accept !== 'boolean') throw new CommandError('handle_dialog needs accept (true or false)');
  if (cmd.prompt_text != null && typeof cmd.prompt_text !== 'string') throw new CommandError('prompt_text must be a string');
  if (typeof cmd.prompt_text === 'string' && cmd.prompt_text.length > 100_000) throw new CommandError('prompt_text is longer than 100000 characters');
  await setDialogPolicy(tab.id, cmd.accept, cmd.prompt_text ?? undefined);
  const how = cmd.accept ? (typeof cmd.prompt_text === 'string' ? 'accepted (a prompt gets the text given)' : 'accepted') : 'dismissed';
  return { message: `The next dialog on tab ${tab.id} will be ${how}`, result: { tabId: tab.id, accept: cmd.accept }, pageTabId: tab.id };
}
