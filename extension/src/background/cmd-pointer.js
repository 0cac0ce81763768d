// Handlers of the pointer's actions without a click: hover and drag (see handlers.js). Both are page
// actions (cmd-input.js: trusted input when granted, else the content script; then settled). Hover
// with trusted input moves the real pointer (trusted.js), which also gives CSS :hover; a drag always
// goes through the content script (content/pointer.js), whose events both HTML5 drag and drop and
// pointer-driven lists follow.
import { pageAction } from './cmd-input.js';

export const hoverAction = (cmd) => pageAction('hover', cmd);
export const dragAction = (cmd) => pageAction('drag', cmd);
