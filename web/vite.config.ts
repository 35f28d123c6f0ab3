/// <reference types="vitest/config" />
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import tailwindcss from '@tailwindcss/vite';
import { VitePWA } from 'vite-plugin-pwa';
import { fileURLToPath } from 'node:url';
import { compileHints } from './scripts/compile-hints';
import { firstPaint } from './scripts/first-paint';
import { precompress } from './scripts/precompress';
import { preloadRoutes } from './scripts/preload-routes';
import { signedInChunks } from './scripts/signed-in-chunks';

const daemon = 'http://127.0.0.1:8080';
const page = (name: string) => `src/app/routes/${name}.tsx`;
// The signed-in pages a reader opens the app on: preloaded with the entry script, and what they
// need beyond it gathered into two chunks (scripts/signed-in-chunks.ts).
const firstPages = { '/app': page('app'), '/tv-mode': page('tv-mode') };
// The pages a visitor without a session can open (src/app/router.tsx, outside RequireAuth).
const openPages = ['register', 'forgot-password', 'reset-password', 'auth-callback', 'unsubscribe', 'not-found'].map(page);
const signedIn = signedInChunks(Object.values(firstPages), openPages, page('landing'));

export default defineConfig({
  plugins: [
    react(),
    tailwindcss(),
    signedIn.plugin,
    preloadRoutes(firstPages),
    firstPaint(),
    compileHints(firstPages),
    precompress(),
    // Installable and readable offline (web/README.md "Offline"): a manifest, and a service
    // worker that keeps the app shell, the pages of the API it read last, and answers the
    // app's routes with the page it kept when the network is gone.
    VitePWA({
      registerType: 'prompt',
      // Registered from the signed-in app (src/lib/offline.ts), not the landing page.
      injectRegister: false,
      manifest: {
        name: 'Radar',
        short_name: 'Radar',
        description: 'AI news for professionals',
        start_url: '/app',
        scope: '/',
        display: 'standalone',
        background_color: '#ffffff',
        theme_color: '#4f46e5',
        icons: [
          { src: '/icon-192.png', sizes: '192x192', type: 'image/png' },
          { src: '/icon-512.png', sizes: '512x512', type: 'image/png' },
          { src: '/icon-maskable-512.png', sizes: '512x512', type: 'image/png', purpose: 'maskable' },
        ],
      },
      workbox: {
        // The daemon answers /index.html with the configuration inline, so the kept page starts.
        globPatterns: ['**/*.{js,css,html,png}'],
        navigateFallback: null,
        cleanupOutdatedCaches: true,
        // The first worker takes the open page at once, so what it reads next is kept; later
        // ones wait for the reader to accept the new version.
        clientsClaim: true,
        runtimeCaching: [
          {
            // Pages: the network's answer when there is one, else the one kept, else the app.
            urlPattern: ({ request }) => request.mode === 'navigate',
            handler: 'NetworkFirst',
            options: {
              cacheName: 'radar-pages',
              networkTimeoutSeconds: 5,
              matchOptions: { ignoreSearch: true },
              precacheFallback: { fallbackURL: '/index.html' },
            },
          },
          {
            // What the reader read last (feed pages, lists, items, the account): kept per
            // address, cleared at sign-out and when another account signs in.
            urlPattern: ({ url, request }) => url.pathname.startsWith('/api/') && request.method === 'GET',
            handler: 'NetworkFirst',
            options: {
              cacheName: 'radar-api',
              networkTimeoutSeconds: 5,
              expiration: { maxEntries: 300, maxAgeSeconds: 7 * 24 * 3600 },
              cacheableResponse: { statuses: [200] },
            },
          },
        ],
      },
    }),
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
    rolldownOptions: {
      output: {
        codeSplitting: {
          // Only the modules each test names: their imports stay where they are (the entry's
          // React above all), and the plugin checks that no chunk loads itself back.
          groups: [
            { name: 'reader', test: signedIn.reader, includeDependenciesRecursively: false },
            { name: 'shared', test: signedIn.shared, includeDependenciesRecursively: false },
            { name: 'common', test: signedIn.common, includeDependenciesRecursively: false },
          ],
        },
      },
    },
  },
  test: {
    environment: 'jsdom',
    globals: true,
    setupFiles: ['./src/test/setup.ts'],
    include: ['src/**/__tests__/**/*.test.{ts,tsx}'],
    css: false,
  },
});
