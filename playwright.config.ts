import os from "node:os";
import path from "node:path";
import { defineConfig, devices } from "@playwright/test";

// The browser tests run the product exactly as `npm start` does: the production build, the
// embedded database (a fresh data directory per run) and the demo market.
const port = Number(process.env.E2E_PORT || 3210);
const dataDir = process.env.E2E_DATA_DIR || path.join(os.tmpdir(), `pmb-e2e-${process.pid}-${Date.now()}`);
// Exported for e2e/support/mint-key.ts; workers re-read this file and keep the main process's value.
process.env.E2E_DATA_DIR = dataDir;
const baseURL = `http://127.0.0.1:${port}`;

export default defineConfig({
  testDir: "e2e",
  forbidOnly: !!process.env.CI,
  retries: 0,
  workers: 1,
  timeout: 60_000,
  reporter: process.env.CI ? "list" : "list",
  use: {
    baseURL,
    trace: "retain-on-failure",
    launchOptions: {
      executablePath: "/usr/bin/chromium",
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
      ],
    },
  },
  // api: HTTP only. setup: signs in once through the magic-link flow and saves the browser state.
  // ui: the pages, in Chromium, starting signed in (tests of the sign-in flow itself clear it).
  projects: [
    { name: "api", testMatch: /api\.spec\.ts$/ },
    { name: "setup", testMatch: /\.setup\.ts$/, use: { ...devices["Desktop Chrome"], channel: undefined } },
    {
      name: "ui",
      testIgnore: [/api\.spec\.ts$/, /\.setup\.ts$/],
      dependencies: ["setup"],
      use: { ...devices["Desktop Chrome"], channel: undefined, storageState: "test-results/.auth/signed-in.json" },
    },
  ],
  webServer: {
    command: "node scripts/start.mjs",
    url: `${baseURL}/healthz`,
    timeout: 240_000,
    reuseExistingServer: false,
    stdout: "pipe",
    env: {
      PORT: String(port),
      DATA_DIR: dataDir,
      DATABASE_URL: "",
      REDIS_URL: "",
      PUBLIC_BASE_URL: baseURL,
      ENGINE_SCHEDULER: "0",
      NODE_ENV: "production",
    },
  },
});
