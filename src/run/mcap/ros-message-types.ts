/**
 * The ROS 2 message definitions a run is written in, as .msg text. A schema in MCAP (encoding
 * `ros2msg`) is the type's own text followed by each type it uses, so Foxglove and rosbag2 need no
 * installed packages to decode it. The cavsim_msgs types exist only in these schemas.
 */
const MSG: Record<string, string> = {
  'builtin_interfaces/Time': 'int32 sec\nuint32 nanosec',
  'std_msgs/Header': 'builtin_interfaces/Time stamp\nstring frame_id',
  'geometry_msgs/Point': 'float64 x\nfloat64 y\nfloat64 z',
  'geometry_msgs/Vector3': 'float64 x\nfloat64 y\nfloat64 z',
  'geometry_msgs/Quaternion': 'float64 x 0\nfloat64 y 0\nfloat64 z 0\nfloat64 w 1',
  'geometry_msgs/Pose': 'geometry_msgs/Point position\ngeometry_msgs/Quaternion orientation',
  'geometry_msgs/PoseWithCovariance': 'geometry_msgs/Pose pose\nfloat64[36] covariance',
  'geometry_msgs/Twist': 'geometry_msgs/Vector3 linear\ngeometry_msgs/Vector3 angular',
  'geometry_msgs/TwistWithCovariance': 'geometry_msgs/Twist twist\nfloat64[36] covariance',
  'geometry_msgs/Transform': 'geometry_msgs/Vector3 translation\ngeometry_msgs/Quaternion rotation',
  'geometry_msgs/TransformStamped': 'std_msgs/Header header\nstring child_frame_id\ngeometry_msgs/Transform transform',
  'tf2_msgs/msg/TFMessage': 'geometry_msgs/TransformStamped[] transforms',
  'nav_msgs/msg/Odometry':
    'std_msgs/Header header\nstring child_frame_id\ngeometry_msgs/PoseWithCovariance pose\ngeometry_msgs/TwistWithCovariance twist',
  'nav_msgs/MapMetaData':
    'builtin_interfaces/Time map_load_time\nfloat32 resolution\nuint32 width\nuint32 height\ngeometry_msgs/Pose origin',
  'nav_msgs/msg/OccupancyGrid': 'std_msgs/Header header\nnav_msgs/MapMetaData info\nint8[] data',
  'sensor_msgs/msg/LaserScan':
    'std_msgs/Header header\nfloat32 angle_min\nfloat32 angle_max\nfloat32 angle_increment\nfloat32 time_increment\nfloat32 scan_time\nfloat32 range_min\nfloat32 range_max\nfloat32[] ranges\nfloat32[] intensities',
  'ackermann_msgs/AckermannDrive':
    'float32 steering_angle\nfloat32 steering_angle_velocity\nfloat32 speed\nfloat32 acceleration\nfloat32 jerk',
  'ackermann_msgs/msg/AckermannDriveStamped': 'std_msgs/Header header\nackermann_msgs/AckermannDrive drive',
  'rosgraph_msgs/msg/Clock': 'builtin_interfaces/Time clock',
  'cavsim_msgs/msg/V2VFrame': [
    '# One V2V frame, or one (frame, receiver) for /v2v/received and /v2v/lost.',
    'std_msgs/Header header',
    'string id',
    'string sender',
    '# The intended receiver; on /v2v/sent every intended receiver, comma-separated.',
    'string receiver',
    'string type',
    'builtin_interfaces/Time sent',
    '# Zero unless delivered.',
    'builtin_interfaces/Time received',
    'uint32 size_bytes',
    '# delivered, or why it was lost (below-sensitivity, channel-loss, queue-drop, ...).',
    'string outcome',
    '# Centre distance between the cars when it was sent [m]; NaN when not known.',
    'float64 distance_m',
    '# 1 line of sight, 0 a wall between the cars, -1 not known (wired channels).',
    'int8 line_of_sight',
    '# NaN when not known.',
    'float64 rx_power_dbm',
  ].join('\n'),
  'cavsim_msgs/msg/Collision': 'std_msgs/Header header\nstring a\nstring b\nfloat64 speed_a_mps\nfloat64 speed_b_mps',
  'cavsim_msgs/msg/RunEvent': 'std_msgs/Header header\nstring vehicle\nstring event\n# JSON\nstring detail',
};

export type RosTypeName =
  | 'tf2_msgs/msg/TFMessage'
  | 'nav_msgs/msg/Odometry'
  | 'nav_msgs/msg/OccupancyGrid'
  | 'sensor_msgs/msg/LaserScan'
  | 'ackermann_msgs/msg/AckermannDriveStamped'
  | 'rosgraph_msgs/msg/Clock'
  | 'cavsim_msgs/msg/V2VFrame'
  | 'cavsim_msgs/msg/Collision'
  | 'cavsim_msgs/msg/RunEvent';

const SEPARATOR = '='.repeat(80);
const FIELD_TYPE = /^\s*([A-Za-z_][\w/]*\/[\w]+)(\[\d*\])?\s+\w+/;

/** The types a definition uses, depth first, each once. */
function dependencies(type: string, seen = new Set<string>()): string[] {
  const out: string[] = [];
  for (const line of MSG[type].split('\n')) {
    const used = FIELD_TYPE.exec(line)?.[1];
    if (!used || seen.has(used)) continue;
    if (!(used in MSG)) throw new Error(`message type ${type} uses ${used}, which has no definition`);
    seen.add(used);
    out.push(used, ...dependencies(used, seen));
  }
  return out;
}

const schemaTexts = new Map<RosTypeName, string>();

/** The `ros2msg` schema text of a type: its own fields, then every type it uses. */
export function schemaText(type: RosTypeName): string {
  let text = schemaTexts.get(type);
  if (text === undefined) schemaTexts.set(type, (text = composeSchema(type)));
  return text;
}

function composeSchema(type: RosTypeName): string {
  const parts = [MSG[type]];
  for (const dep of dependencies(type)) parts.push(`${SEPARATOR}\nMSG: ${dep}\n${MSG[dep]}`);
  return parts.join('\n');
}

/** A field of a message type, as the CDR encoder needs it. */
export interface MsgField {
  name: string;
  /** A primitive (float64, string, ...) or another type of this file. */
  type: string;
  /** undefined: one value; null: a sequence; a number: an array of that length. */
  length?: number | null;
}

const FIELD = /^\s*([\w/]+)(\[(\d*)\])?\s+(\w+)/;

const parsedFields = new Map<string, MsgField[]>();

/** The fields of a type (constants and comments left out; defaults do not change the encoding). */
export function msgFields(type: string): MsgField[] {
  let fields = parsedFields.get(type);
  if (!fields) parsedFields.set(type, (fields = parseFields(type)));
  return fields;
}

function parseFields(type: string): MsgField[] {
  const text = MSG[type];
  if (text === undefined) throw new Error(`no definition for ${type}`);
  return text.split('\n').flatMap((line): MsgField[] => {
    const code = line.replace(/#.*/, '');
    if (code.includes('=')) return [];
    const m = FIELD.exec(code);
    if (!m) return [];
    const length = m[2] === undefined ? undefined : m[3] ? Number(m[3]) : null;
    return [{ type: m[1], name: m[4], ...(length !== undefined ? { length } : {}) }];
  });
}
