-- unlink: parent, name, session, expect. Returns {ino, attr, deleted}.
-- An inode that loses its last link is deleted at once when it is expect
-- (an inode the caller does not hold open; 0: none), and otherwise kept
-- as an orphan of the session.
local parent, name, sid = tonumber(ARGV[A]), ARGV[A + 1], tonumber(ARGV[A + 2])
local expect = tonumber(ARGV[A + 3]) or 0
local p, en, a = find_victim(parent, name)
if not p then return fail(en) end
if a.t == TDIR then return fail('EISDIR') end
redis.call('ZREM', k_dir(parent), en.m)
touch_mc(p)
put_attr(parent, p)
a.nlink = a.nlink - 1
touch_c(a)
if a.nlink == 0 and en.ino == expect then
  local encoded = pack_attr(a)
  destroy(en.ino, a)
  return {en.ino, encoded, 1}
end
if a.nlink == 0 then orphan(en.ino, sid) end
return {en.ino, put_attr(en.ino, a), 0}
