export type { Area, DoctorOptions, DoctorReport, Finding, Level } from './report.js';
export { AREAS, DOCTOR_CONNECT_TIMEOUT_MS, DOCTOR_READ_TIMEOUT_MS, LEVELS, runDoctor } from './report.js';
