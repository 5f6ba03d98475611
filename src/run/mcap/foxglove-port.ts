/** Foxglove's own default port for its WebSocket connection. */
export const FOXGLOVE_DEFAULT_PORT = 8765;
