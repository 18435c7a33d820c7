// The clock lives with the time formats (lib/time-format.ts); this name stays for the engine's import.
export { systemClock, type Clock } from "@/lib/time-format";
