import { reactRouter } from '@react-router/dev/vite'
import tailwindcss from '@tailwindcss/vite'
import { defineConfig } from 'vite'

export default defineConfig({
  plugins: [tailwindcss(), reactRouter()],
  environments: {
    // The server bundle's entry is our own HTTP host (security headers, health checks, graceful
    // shutdown), which imports React Router's server build: one bundle, one copy of each module.
    ssr: { build: { rollupOptions: { input: './server/app.ts' } } },
  },
})
