/** The recorder's CSV logs: each one's columns, in order. */
export const CSV_COLUMNS = {
  vehicles: [
    't_s',
    'vehicle',
    'x_m',
    'y_m',
    'yaw_rad',
    'speed_mps',
    'steer_rad',
    'yaw_rate_radps',
    'cmd_speed_mps',
    'cmd_steer_rad',
    'braking',
    'collided',
  ],
  pairs: ['t_s', 'a', 'b', 'distance_m', 'gap_m', 'closing_speed_mps', 'ttc_s'],
  collisions: ['t_s', 'a', 'b', 'speed_a_mps', 'speed_b_mps'],
  v2v: [
    'id',
    'from',
    'to',
    'type',
    'sent_s',
    'received_s',
    'latency_ms',
    'size_bytes',
    'outcome',
    'distance_m',
    'line_of_sight',
    'rx_power_dbm',
    'from_station_id',
    'to_station_id',
  ],
  events: ['t_s', 'vehicle', 'event', 'detail'],
} as const;

/** The recorder's logs; run/run-files.ts names their files. */
export type CsvLogName = keyof typeof CSV_COLUMNS;

/** cbr.csv, the recorder's one log opened only when a row comes (a channel with a medium state): each car's CBR per window. */
export const CBR_COLUMNS = ['t_start_s', 't_end_s', 'vehicle', 'cbr'] as const;

/** Where the recorder writes: each log's file, and cbr.csv's when the run may have one. */
export type RecorderFiles = Readonly<Record<CsvLogName, string>> & { readonly cbr?: string };
