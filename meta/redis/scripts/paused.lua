-- paused.lua goes in front of every script that may change what a dump
-- reads (all but the read and lock scripts, see loadScripts): while a
-- dump holds the volume's pause (dumppause.go), such a script changes
-- nothing and answers PAUSED, and the client waits and sends it again.
-- One EXISTS, inside the script: no extra round trip.
if redis.call('EXISTS', KEYS[1] .. ':dumping') == 1 then
  return redis.error_reply('PAUSED a dump of the volume is running')
end
