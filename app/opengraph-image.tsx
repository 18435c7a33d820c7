import { ImageResponse } from "next/og";

// The social card: drawn once at build time from this markup (no data, no fonts fetched).
export const alt = "PM Benchmarks: benchmark indices and volatility series for prediction markets";
export const size = { width: 1200, height: 630 };
export const contentType = "image/png";

export default function OpengraphImage() {
  return new ImageResponse(
    <div
      style={{
        width: "100%",
        height: "100%",
        display: "flex",
        flexDirection: "column",
        justifyContent: "space-between",
        background: "#0f172a",
        padding: 72,
        color: "#ffffff",
      }}
    >
      <div style={{ display: "flex", alignItems: "center", gap: 24 }}>
        <svg width="96" height="96" viewBox="0 0 64 64">
          <rect width="64" height="64" rx="14" fill="#1e293b" />
          <path
            d="M10 44 L22 34 L32 38 L44 20 L54 26"
            fill="none"
            stroke="#60a5fa"
            strokeWidth="6"
            strokeLinecap="round"
            strokeLinejoin="round"
          />
          <circle cx="54" cy="26" r="5" fill="#ffffff" />
        </svg>
        <div style={{ fontSize: 56, fontWeight: 700 }}>PM Benchmarks</div>
      </div>
      <div style={{ display: "flex", flexDirection: "column", gap: 16 }}>
        <div style={{ fontSize: 64, fontWeight: 700, lineHeight: 1.1 }}>
          Benchmark indices and volatility for prediction markets
        </div>
        <div style={{ fontSize: 32, color: "#cbd5e1" }}>
          Exact decimal levels · JSON API · MCP · monthly CSV bundles
        </div>
      </div>
    </div>,
    size,
  );
}
