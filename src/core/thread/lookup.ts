/**
 * Which thread or comment a path names, as SQL giving its id (null when there is none):
 * resolved inside the statement that reads or writes it, so a name costs no round trip.
 */
import { eq, sql, type SQL } from 'drizzle-orm';
import { users } from '../../db/schema';
import { checkTopic, parseOpenedTopic, type CommentStep, type ThreadSubject } from './rules';
import { threadComments, threads } from './schema';

export const subjectIs = (s: ThreadSubject): SQL =>
  'resource_id' in s ? eq(threads.resource_id, s.resource_id) : eq(threads.group_id, s.group_id);
const userIdOf = (username: string): SQL =>
  sql`(select ${users.id} from ${users} where ${users.username} = ${username})`;

/**
 * The thread a path segment names, as SQL giving its id (null when there is none):
 * `@<author>~<topic>`, or a bare topic: the caller's own of that name, else the oldest.
 */
export function threadNamed(s: ThreadSubject, callerId: number, segment: string): { id: SQL; topic: string } {
  if (segment.startsWith('@')) {
    const { user, topic } = parseOpenedTopic(segment);
    return {
      id: sql`(select ${threads.id} from ${threads} where ${subjectIs(s)} and ${threads.topic} = ${topic} and ${threads.created_by} = ${userIdOf(user)})`,
      topic,
    };
  }
  const topic = checkTopic(segment);
  return {
    id: sql`(select ${threads.id} from ${threads} where ${subjectIs(s)} and ${threads.topic} = ${topic} order by ${threads.created_by} = ${callerId} desc, ${threads.id} limit 1)`,
    topic,
  };
}

/**
 * The comment a path of steps names in a thread, as SQL giving its id (null when there is
 * none): each `@<author>~<slug>` among the replies of the step before (the topic's own
 * comments first); a comment id anywhere in the thread, as before slugs.
 */
export function commentNamed(thread: SQL, steps: CommentStep[]): SQL {
  let parent: SQL | null = null;
  for (const step of steps) {
    const match: SQL =
      'id' in step
        ? sql`c.id = ${step.id}`
        : sql`c.author_id = ${userIdOf(step.user)} and coalesce(c.slug, cast(c.id as text)) = ${step.slug} and ${parent === null ? sql`c.parent_id is null` : sql`c.parent_id = ${parent}`}`;
    parent = sql`(select c.id from ${threadComments} c where c.thread_id = ${thread} and ${match})`;
  }
  return parent!;
}
