// Builds the renderer (renderer/) into dist/renderer, served by `rlm-studio serve` and loaded by
// the Electron shell. Relative base so both file-less hosts (app:// protocol, http) work.
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

export default defineConfig({
  root: 'renderer',
  base: './',
  plugins: [react()],
  build: {
    outDir: '../dist/renderer',
    emptyOutDir: true,
    sourcemap: true,
    // The chunks over Vite's 500 kB default are Monaco's editor (2.7 MB) and pdf.js' worker, both
    // loaded only when a view needs them, and from disk or localhost, never over a network.
    chunkSizeWarningLimit: 3000,
  },
});
