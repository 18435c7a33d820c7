/** Placeholder values used in generated examples (the JSON examples under content/docs/examples use the same). */
export const EXAMPLE_BASE_URL = "https://benchmarks.example.com";
export const EXAMPLE_REQUEST_ID = "0b8e5f0c-6a1d-4d7e-9c3b-2f61a4e8d905";
