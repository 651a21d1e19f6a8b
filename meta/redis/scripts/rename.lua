-- rename: src parent, src name, dst parent, dst name, flags, session.
-- Returns {moved ino, its attr, replaced orphan or 0}.
local sp, sn, dp, dn = tonumber(ARGV[A]), ARGV[A + 1], tonumber(ARGV[A + 2]), ARGV[A + 3]
local flags, sid = tonumber(ARGV[A + 4]), tonumber(ARGV[A + 5])
local noreplace, exchange = band(flags, 1) ~= 0, band(flags, 2) ~= 0
local emptydir = band(flags, 65536) ~= 0 -- meta.RenameEmptyDir
local spa, e = get_dir(sp)
if not spa then return fail(e) end
local dpa = spa
if dp ~= sp then
  dpa, e = get_dir(dp)
  if not dpa then return fail(e) end
end
e = access(spa, cred, MAY_EXEC) or access(dpa, cred, MAY_EXEC)
if e then return fail(e) end
local se = find(sp, sn)
if not se then return fail('ENOENT') end
local de = find(dp, dn)
if exchange and not de then return fail('ENOENT') end
if noreplace and de then return fail('EEXIST') end
local sa = get_attr(se.ino)
if not sa then return fail('EIO entry without inode') end
if de and de.ino == se.ino then return {se.ino, pack_attr(sa), 0} end
local da
if de then
  da = get_attr(de.ino)
  if not da then return fail('EIO entry without inode') end
end

-- under reports whether directory dir is ino or lies below it.
local function under(dir, ino)
  local seen = 0
  while dir ~= ino do
    if dir == 1 or seen > 100000 then return false end
    local a = get_attr(dir)
    if not a then return false end
    dir = a.parent
    seen = seen + 1
  end
  return true
end
if sp ~= dp then
  if sa.t == TDIR and under(dp, se.ino) then return fail('EINVAL') end
  if de and da.t == TDIR then
    if under(sp, de.ino) then
      if exchange then return fail('EINVAL') end
      return fail('ENOTEMPTY')
    end
  end
end

e = may_delete(spa, sa, cred)
if e then return fail(e) end
if de then e = may_delete(dpa, da, cred) else e = access(dpa, cred, MAY_WRITE + MAY_EXEC) end
if e then return fail(e) end
if de and not exchange then
  if sa.t == TDIR and da.t ~= TDIR then return fail('ENOTDIR') end
  if sa.t ~= TDIR and da.t == TDIR then return fail('EISDIR') end
end
if sp ~= dp then
  if sa.t == TDIR then
    e = access(sa, cred, MAY_WRITE)
    if e then return fail(e) end
  end
  if exchange and da.t == TDIR then
    e = access(da, cred, MAY_WRITE)
    if e then return fail(e) end
  end
end
if emptydir then
  if sa.t ~= TDIR then return fail('ENOTDIR') end
  if redis.call('ZCARD', k_dir(se.ino)) > 0 then return fail('ENOTEMPTY') end
end
if de and not exchange and da.t == TDIR and redis.call('ZCARD', k_dir(de.ino)) > 0 then
  return fail('ENOTEMPTY')
end

redis.call('ZREM', k_dir(sp), se.m)
if de then redis.call('ZREM', k_dir(dp), de.m) end
add_entry(dp, dn, sa.t, se.ino)
if sa.t == TDIR and sp ~= dp then
  sa.parent = dp
  spa.nlink = spa.nlink - 1
  dpa.nlink = dpa.nlink + 1
end
touch_c(sa)
local replaced = 0
if exchange then
  add_entry(sp, sn, da.t, de.ino)
  if da.t == TDIR and sp ~= dp then
    da.parent = sp
    dpa.nlink = dpa.nlink - 1
    spa.nlink = spa.nlink + 1
  end
  touch_c(da)
  put_attr(de.ino, da)
elseif de then
  if da.t == TDIR then
    dpa.nlink = dpa.nlink - 1
    destroy(de.ino, da)
  else
    da.nlink = da.nlink - 1
    touch_c(da)
    if da.nlink == 0 then
      orphan(de.ino, sid)
      replaced = de.ino
    end
    put_attr(de.ino, da)
  end
end
touch_mc(spa)
put_attr(sp, spa)
if dp ~= sp then
  touch_mc(dpa)
  put_attr(dp, dpa)
end
return {se.ino, put_attr(se.ino, sa), replaced}
