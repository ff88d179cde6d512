// notebook-chat: a tiny JupyterLab plugin that lets the chat widget find the notebook it is drawn in.
// It publishes `window.__notebook_chat__ = {version, findPanel(el)}`; everything else (metadata
// read/write, cell id, insert cell) lives in the widget bundle (js/widget/src/metadata.js).
import { INotebookTracker } from '@jupyterlab/notebook';

const BRIDGE_VERSION = 1;

/** @type {import('@jupyterlab/application').JupyterFrontEndPlugin<void>} */
const plugin = {
  id: 'notebook-chat:bridge',
  description: 'Lets notebook_chat widgets reach their notebook document.',
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
  },
};

export default plugin;
