-- clone: src, parent, name, ino, preserve (1 or 0). A copy of inode src
-- as a new inode: meta.CloneAttr (meta/clone.go) ported for its
-- attributes; a file's slice lists are copied with one more reference per
-- record, so that the copies share blocks until either is written.
local src, parent, name, ino = tonumber(ARGV[A]), tonumber(ARGV[A + 1]), ARGV[A + 2], tonumber(ARGV[A + 3])
local preserve = ARGV[A + 4] == '1'
local p, e = get_dir(parent)
if not p then return fail(e) end
e = access(p, cred, MAY_EXEC)
if e then return fail(e) end
if find(parent, name) then return fail('EEXIST') end
e = access(p, cred, MAY_WRITE)
if e then return fail(e) end
local s = get_attr(src)
if p.nlink == 0 or not s or s.nlink == 0 then return fail('ENOENT') end
if redis.call('EXISTS', k_attr(ino)) == 1 then return fail('EIO inode number in use') end
if s.t ~= TSYMLINK then
  local mask = MAY_READ
  if s.t == TDIR then mask = bor(MAY_READ, MAY_EXEC) end
  e = access(s, cred, mask)
  if e then return fail(e) end
end
local a
if preserve then
  if cred.uid ~= 0 and (cred.uid ~= s.uid or not in_group(cred, s.gid)) then return fail('EPERM') end
  a = {}
  for k, v in pairs(s) do a[k] = v end
  a.nlink, a.parent, a.cs, a.cn = 1, 0, now_s, now_ns
  if a.t == TDIR then a.nlink, a.len = 2, 4096 end
else
  -- 3072: setuid and setgid, which a copy by its new owner does not keep.
  a = init_attr(p, cred, s.t, band(s.mode, bnot(3072)), s.rdev)
  if s.t ~= TDIR then a.len = s.len end
end
e = check_quota(space(a), 1)
if e then return fail(e) end
if a.t == TDIR then
  a.parent = parent
  p.nlink = p.nlink + 1
elseif a.t == TSYMLINK then
  redis.call('SET', k_symlink(ino), redis.call('GET', k_symlink(src)))
elseif a.t == TFILE then
  for _, idx in ipairs(redis.call('SMEMBERS', k_chunks(src))) do
    local recs = redis.call('LRANGE', k_chunk(src, tonumber(idx)), 0, -1)
    if #recs > 0 then
      push_all(k_chunk(ino, tonumber(idx)), recs)
      for _, r in ipairs(recs) do ref(r) end
      redis.call('SADD', k_chunks(ino), idx)
    end
  end
end
if preserve then
  local xs = redis.call('HGETALL', k_xattr(src))
  for i = 1, #xs, 2 do redis.call('HSET', k_xattr(ino), xs[i], xs[i + 1]) end
end
touch_mc(p)
put_attr(parent, p)
add_entry(parent, name, a.t, ino)
add_usage(space(a), 1)
return put_attr(ino, a)
