-- removeentries: parent, name... Removes the non-directory entries of
-- parent that exist, deleting the inodes that lose their last link.
-- Every name is checked before anything changes, so that a refused name
-- leaves the whole batch undone. Returns how many entries it removed.
local parent = tonumber(ARGV[A])
local found = {}
for i = A + 1, #ARGV do
  local p, en, a = find_victim(parent, ARGV[i])
  if not p then
    if en ~= 'ENOENT' or not get_attr(parent) then return fail(en) end
  else
    if a.t == TDIR then return fail('EISDIR') end
    found[#found + 1] = en
  end
end
if #found == 0 then return 0 end
local p = get_attr(parent)
for _, en in ipairs(found) do
  redis.call('ZREM', k_dir(parent), en.m)
  local a = get_attr(en.ino)
  a.nlink = a.nlink - 1
  if a.nlink == 0 then
    destroy(en.ino, a)
  else
    touch_c(a)
    put_attr(en.ino, a)
  end
end
touch_mc(p)
put_attr(parent, p)
return #found
