/// <reference types="vitest/config" />
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import tailwindcss from '@tailwindcss/vite';
import { fileURLToPath } from 'node:url';
import { precompress } from './scripts/precompress';
import { preloadRoutes } from './scripts/preload-routes';

const daemon = 'http://127.0.0.1:8080';

export default defineConfig({
  plugins: [
    react(),
    tailwindcss(),
    preloadRoutes({ '/app': 'src/app/routes/app.tsx', '/tv-mode': 'src/app/routes/tv-mode.tsx' }),
    precompress(),
  ],
  resolve: {
    alias: { '@': fileURLToPath(new URL('./src', import.meta.url)) },
  },
  server: {
    proxy: {
      '/api': daemon,
      '/auth/v1': daemon,
    },
  },
  build: {
    manifest: true,
    // Every browser the build targets but Safari 16 preloads modules itself; Safari 16 merely
    // loads them when asked, so the polyfill is not worth its bytes in the first download.
    modulePreload: { polyfill: false },
    assetsDir: 'assets',
    sourcemap: false,
  },
  test: {
    environment: 'jsdom',
    globals: true,
    setupFiles: ['./src/test/setup.ts'],
    include: ['src/**/__tests__/**/*.test.{ts,tsx}'],
    css: false,
  },
});
