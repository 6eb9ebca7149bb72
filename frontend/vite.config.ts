import react from "@vitejs/plugin-react";
import { defineConfig } from "vitest/config";

// The FastAPI app serves dist/ at "/" (SPA fallback) and the api at "/api" on the same
// origin, so the dev server proxies "/api" (including the SSE streams) to a local api.
export default defineConfig({
  plugins: [react()],
  server: {
    proxy: {
      "/api": { target: "http://127.0.0.1:8000", changeOrigin: false },
    },
  },
  build: {
    outDir: "dist",
    emptyOutDir: true,
  },
  test: {
    environment: "node",
    include: ["src/**/*.test.ts"],
  },
});
