import { z } from 'zod';

/** What a principal may do in a project (issue #13): read its repositories, or also change it. */
export const ProjectRole = z.enum(['reader', 'maintainer']);
export type ProjectRole = z.output<typeof ProjectRole>;
