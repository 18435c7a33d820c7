import { defineConfig, devices } from "@playwright/test";
export default defineConfig({
  testDir: "/work/wt/18b/e2e",
  retries: 0, workers: 1, timeout: 60_000, reporter: "list",
  outputDir: "/tmp/pw-18b-out",
  use: { baseURL: "http://127.0.0.1:3260", launchOptions: { executablePath: "/usr/bin/chromium", args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"] } },
  projects: [{ name: "chromium", use: { ...devices["Desktop Chrome"], channel: undefined } }],
});
