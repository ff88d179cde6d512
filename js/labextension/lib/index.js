// notebook-chat: a tiny JupyterLab plugin that lets the chat widget find the notebook it is drawn in.
// It publishes `window.__notebook_chat__ = {version, findPanel(el)}`; everything else (metadata
// read/write, cell id, insert cell) lives in the widget bundle (js/widget/src/metadata.js).
// It also draws a chat read-only where its widget model is missing (a notebook opened without running its
// cells: ipywidgets says "Error displaying widget: model not found"): each conversation stored in the notebook's
// metadata under the chat's key (read_only.js).
import { INotebookTracker } from '@jupyterlab/notebook';
import { drawReadOnly, isModelNotFound, isPlainTextOutput } from './read_only.js';

const BRIDGE_VERSION = 1;
const PLAIN_TEXT_OUTPUT = '.jp-OutputArea-output[data-mime-type="text/plain"]';

function scan(panel, nodes) {
  for (const node of nodes) {
    if (!isModelNotFound(node) && !isPlainTextOutput(node)) {
      continue;
    }
    try {
      drawReadOnly(panel, node);
    } catch (err) {
      console.warn('notebook-chat: could not draw the saved conversation', err);
    }
  }
}

/** Watch a notebook for chat outputs whose model is missing; only the mutated nodes are looked at. */
function watch(panel) {
  const observer = new MutationObserver((records) => {
    const nodes = [];
    for (const record of records) {
      if (record.type !== 'childList') {
        continue;
      }
      nodes.push(record.target); // the widget renderer that got its "model not found" text
      for (const added of record.addedNodes) { // outputs drawn as text/plain (cells are attached already built)
        if (added.nodeType === 1) {
          nodes.push(added, ...added.querySelectorAll(PLAIN_TEXT_OUTPUT));
        }
      }
    }
    scan(panel, nodes);
  });
  observer.observe(panel.node, { childList: true, subtree: true });
  panel.disposed.connect(() => observer.disconnect());
  scan(panel, panel.node.querySelectorAll(`.jupyter-widgets, ${PLAIN_TEXT_OUTPUT}`));
}

/** @type {import('@jupyterlab/application').JupyterFrontEndPlugin<void>} */
const plugin = {
  id: 'notebook-chat:bridge',
  description: 'Lets notebook_chat widgets reach their notebook document; draws saved chats without a kernel.',
  autoStart: true,
  requires: [INotebookTracker],
  activate: (_app, tracker) => {
    const findPanel = (el) => {
      let found = null;
      tracker.forEach((panel) => {
        if (!found && panel.node.contains(el)) {
          found = panel;
        }
      });
      return found;
    };
    window.__notebook_chat__ = { version: BRIDGE_VERSION, findPanel };
    tracker.forEach(watch);
    tracker.widgetAdded.connect((_tracker, panel) => watch(panel));
  },
};

export default plugin;
