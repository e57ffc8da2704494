/**
 * Types for the uPlot ESM build the dashboard loads as `assets/vendor/uPlot.esm.js`
 * (copied from the `uplot` package by scripts/build-renderer.mjs): the package's own
 * declarations, re-exported under the path the browser imports.
 */
import uPlot from 'uplot';

export default uPlot;
