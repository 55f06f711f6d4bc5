-- Wireshark dissector for the binary Reversi protocol (spec/PROTOCOL.md).
--
--   wireshark -X lua_script:spec/wireshark/reversi.lua
--   tshark -X lua_script:spec/wireshark/reversi.lua -r game.pcapng
--
-- Or copy it into the personal plugins folder (Help > About > Folders).
-- Fields are named as in the specification: reversi.msg_size, reversi.id,
-- reversi.player, reversi.pad, reversi.x, reversi.y; every check of §5.3
-- (M1-M7) that fails raises an expert warning, reversi.malformed.
--
-- Connections are found two ways. On TCP port 8765 (the default; a
-- preference) they are told apart as the server does (spec/TEXT-PROTOCOL.md
-- §1): one whose first line is printable (a blank one included) speaks the
-- text protocol, shown line by line (the hook for a dissector of its
-- messages); anything else is binary. On any other port a
-- heuristic claims only a connection whose first bytes are a binary connect,
-- 00 04 00 00, so no other protocol's traffic is taken for Reversi.

local reversi = Proto("reversi", "Reversi Protocol")

local HEADER_LEN = 4
local MAX_PDU_LEN = 264
local MAX_SQUARES = 64
local DEFAULT_PORT = 8765

-- §4.1: id -> name, the size §5.1 fixes (nil: update_board's 8 + 4n) and the
-- direction it travels ("c2s", "s2c" or "both").
local PDUS = {
    [-1] = { name = "error", size = 4, dir = "both" },
    [0] = { name = "connect", size = 4, dir = "c2s" },
    [1] = { name = "connect_ok", size = 8, dir = "s2c" },
    [2] = { name = "quit", size = 4, dir = "c2s" },
    [3] = { name = "turn", size = 4, dir = "s2c" },
    [4] = { name = "place", size = 8, dir = "c2s" },
    [5] = { name = "place_error", size = 4, dir = "s2c" },
    [6] = { name = "update_board", size = nil, dir = "s2c" },
    [7] = { name = "winner", size = 8, dir = "s2c" },
}

local ID_NAMES = {}
for id, pdu in pairs(PDUS) do
    ID_NAMES[id] = pdu.name
end

-- §4.2; in winner, 0 means a draw.
local PLAYER_NAMES = { [0] = "EMPTY", [1] = "WHITE", [2] = "BLACK" }
local COLOUR = { [1] = "white", [2] = "black" }

local DIRECTION_TEXT = { c2s = "client to server", s2c = "server to client" }

local f = {
    msg_size = ProtoField.uint16("reversi.msg_size", "msg_size", base.DEC, nil, nil,
        "Length of the whole PDU, header included"),
    id = ProtoField.int16("reversi.id", "id", base.DEC, ID_NAMES),
    player = ProtoField.int16("reversi.player", "player", base.DEC, PLAYER_NAMES),
    pad = ProtoField.uint16("reversi.pad", "pad", base.HEX),
    x = ProtoField.int16("reversi.x", "x", base.DEC),
    y = ProtoField.int16("reversi.y", "y", base.DEC),
    square = ProtoField.string("reversi.square", "Square"),
    count = ProtoField.uint8("reversi.count", "Squares", base.DEC),
    line = ProtoField.string("reversi.line", "Text line"),
}
reversi.fields = { f.msg_size, f.id, f.player, f.pad, f.x, f.y, f.square, f.count, f.line }

local malformed = ProtoExpert.new("reversi.malformed", "Malformed Reversi PDU",
    expert.group.MALFORMED, expert.severity.WARN)
reversi.experts = { malformed }

reversi.prefs.port = Pref.uint("TCP port", DEFAULT_PORT, "Port the server listens on")

local tcp_stream = Field.new("tcp.stream")
local tcp_seq = Field.new("tcp.seq")

-- Per TCP stream: which endpoint is the client, and whether the connection
-- is binary or text. Filled in when its first bytes are seen.
local streams = {}

local function endpoint(address, port)
    return tostring(address) .. ":" .. tostring(port)
end

-- The heuristic, for any port: a binary connection starts with connect.
local function starts_with_connect(tvb)
    return tvb:len() >= HEADER_LEN and tvb(0, HEADER_LEN):bytes():tohex() == "00040000"
end

-- The server's rule (TEXT-PROTOCOL.md §1): text when the first line (as far
-- as this segment holds it) has only printable ASCII, tab or CR, an empty line
-- included; anything else is binary (a PDU starts with 0x00 or 0x01).
local function starts_text(tvb)
    if tvb:len() == 0 then
        return false
    end
    -- A PROXY v2 header's signature begins with an empty line, but its NUL
    -- makes it binary, as the server judges it.
    if tvb:len() >= 12 and tvb(0, 12):bytes():tohex(true) == "0d0a0d0a000d0a515549540a" then
        return false
    end
    for i = 0, tvb:len() - 1 do
        local byte = tvb(i, 1):uint()
        if byte == 0x0a then
            return true
        end
        if not ((byte >= 0x20 and byte <= 0x7e) or byte == 0x09 or byte == 0x0d) then
            return false
        end
    end
    return true
end

-- The stream's state, classifying it from this segment when it is the
-- connection's first; nil if the capture missed the start.
local function stream_state(tvb, pinfo)
    local key = tcp_stream()
    if key == nil then
        return nil
    end
    key = key.value
    local state = streams[key]
    local seq = tcp_seq()
    if state == nil and seq ~= nil and seq.value == 1 and tvb:len() > 0 then
        -- Only a client speaks first (the server sends nothing before connect).
        state = {
            client = endpoint(pinfo.src, pinfo.src_port),
            binary = not starts_text(tvb),
        }
        streams[key] = state
    end
    return state
end

-- "c2s", "s2c", or nil when unknown.
local function direction(state, pinfo)
    if state ~= nil then
        if endpoint(pinfo.src, pinfo.src_port) == state.client then
            return "c2s"
        end
        return "s2c"
    end
    if pinfo.dst_port == reversi.prefs.port then
        return "c2s"
    elseif pinfo.src_port == reversi.prefs.port then
        return "s2c"
    end
    return nil
end

local function square_name(x, y)
    if x >= 0 and x < 8 and y >= 0 and y < 8 then
        return string.char(string.byte("a") + x) .. tostring(y + 1)
    end
    return nil
end

-- Adds one `x, y` pair at `offset`; returns its name (or "(x, y)") and
-- whether it is on the board.
local function add_pair(tvb, tree, offset, label)
    local x = tvb(offset, 2):int()
    local y = tvb(offset + 2, 2):int()
    local name = square_name(x, y)
    local text = name or string.format("(%d, %d)", x, y)
    local sub = tree:add(reversi, tvb(offset, 4), label .. ": " .. text)
    sub:add(f.x, tvb(offset, 2))
    sub:add(f.y, tvb(offset + 2, 2))
    if name then
        sub:add(f.square, tvb(offset, 4), name):set_generated()
    end
    return text, name ~= nil, sub
end

-- Adds `player, pad`; returns the player and the padding, with a warning on
-- each item that breaks M5 or M6 (`allowed` is the table of legal players).
local function add_player_word(tvb, tree, name, allowed, problems)
    local player = tvb(4, 2):int()
    local pad = tvb(6, 2):uint()
    local item = tree:add(f.player, tvb(4, 2))
    if allowed[player] == nil then
        local want = allowed[0] and "0 (draw), 1 (white) or 2 (black)" or "1 (white) or 2 (black)"
        local text = string.format("%s with player %d: must be %s", name, player, want)
        item:add_proto_expert_info(malformed, text)
        problems[#problems + 1] = text
    end
    local pad_item = tree:add(f.pad, tvb(6, 2))
    if pad ~= 0 then
        local text = string.format("%s with padding 0x%04x: must be 0", name, pad)
        pad_item:add_proto_expert_info(malformed, text)
        problems[#problems + 1] = text
    end
    return player
end

-- M1 (msg_size out of range), worded as the reversi-pdu codec words it;
-- `id` is nil when the segment ends before it.
local function size_problem(size, id, pdu)
    if pdu ~= nil then
        return string.format("%s with msg_size %d: outside 4..=%d", pdu.name, size, MAX_PDU_LEN)
    elseif id ~= nil then
        return string.format("msg_size %d is outside 4..=%d (and id %d is unknown)",
            size, MAX_PDU_LEN, id)
    end
    return string.format("msg_size %d is outside 4..=%d", size, MAX_PDU_LEN)
end

-- The header checks of §3.4 (M1-M4), in the specification's order; nil if
-- the header is well-formed. Every message is the codec's, word for word.
local function header_problem(size, id, pdu, dir)
    if id == nil or size < HEADER_LEN or size > MAX_PDU_LEN then
        return size_problem(size, id, pdu)
    end
    if pdu == nil then
        return string.format("unknown PDU id %d", id)
    end
    if dir ~= nil and pdu.dir ~= "both" and pdu.dir ~= dir then
        return string.format("%s does not travel %s", pdu.name, DIRECTION_TEXT[dir])
    end
    if pdu.size ~= nil and size ~= pdu.size then
        return string.format("%s with msg_size %d: must be %d", pdu.name, size, pdu.size)
    end
    if pdu.size == nil then
        local n = (size - 8) / 4
        if size <= 8 or (size - 8) % 4 ~= 0 or n > MAX_SQUARES then
            return string.format("update_board with msg_size %d: not 8 + 4n with 1 <= n <= %d",
                size, MAX_SQUARES)
        end
    end
    return nil
end

-- The body of a PDU whose header is well-formed; returns its summary for
-- the Info column (such as "update_board black d3 d4").
local function dissect_body(tvb, tree, id, pdu, problems)
    local name = pdu.name
    if id == 4 then
        local text = add_pair(tvb, tree, 4, "Square")
        return name .. " " .. text
    elseif id == 1 or id == 7 then
        local allowed = id == 7 and PLAYER_NAMES or COLOUR
        local player = add_player_word(tvb, tree, name, allowed, problems)
        if id == 7 and player == 0 then
            return name .. " draw"
        end
        return name .. " " .. (COLOUR[player] or tostring(player))
    elseif id == 6 then
        local player = add_player_word(tvb, tree, name, COLOUR, problems)
        local n = (tvb:len() - 8) / 4
        tree:add(f.count, n):set_generated()
        local parts = { name, COLOUR[player] or tostring(player) }
        for i = 0, n - 1 do
            local text, on_board, sub = add_pair(tvb, tree, 8 + 4 * i, "Square " .. i)
            if not on_board then
                local problem = string.format("update_board square %s is off the board", text)
                sub:add_proto_expert_info(malformed, problem)
                problems[#problems + 1] = problem
            end
            parts[#parts + 1] = text
        end
        return table.concat(parts, " ")
    end
    return name
end

-- Set at the start of each segment, so the first PDU in it replaces the
-- Info column and the others are appended to it.
local first_in_segment = true

local function show_info(pinfo, text)
    if first_in_segment then
        pinfo.cols.info:set(text)
        first_in_segment = false
    else
        pinfo.cols.info:append(", " .. text)
    end
end

-- One whole PDU (or, after a msg_size out of range, the rest of the segment).
local function dissect_pdu(tvb, pinfo, tree)
    local state = stream_state(tvb, pinfo)
    local dir = direction(state, pinfo)
    local size = tvb(0, 2):uint()
    local item = tree:add(reversi, tvb(), "Reversi Protocol")
    item:add(f.msg_size, tvb(0, 2))
    local id = nil
    if tvb:len() >= HEADER_LEN then
        id = tvb(2, 2):int()
        item:add(f.id, tvb(2, 2))
    end
    local pdu = id ~= nil and PDUS[id] or nil
    local problems = {}
    local problem = header_problem(size, id, pdu, dir)
    local summary
    if problem == nil then
        summary = dissect_body(tvb, item, id, pdu, problems)
    else
        item:add_proto_expert_info(malformed, problem)
        problems[#problems + 1] = problem
        summary = pdu and pdu.name or (id and string.format("id %d", id) or "header")
    end
    if #problems > 0 then
        summary = summary .. " [malformed: " .. table.concat(problems, "; ") .. "]"
    end
    item:append_text(", " .. summary)
    show_info(pinfo, summary)
    return tvb:len()
end

-- How long the PDU at `offset` is: msg_size, or the rest of the segment when
-- msg_size is out of range (the stream cannot be resynchronised, §3.4).
local function pdu_length(tvb, pinfo, offset)
    local size = tvb(offset, 2):uint()
    if size < HEADER_LEN or size > MAX_PDU_LEN then
        return tvb:len() - offset
    end
    return size
end

-- The text protocol's hook: for now, one item per line.
local function dissect_text(tvb, pinfo, tree)
    local item = tree:add(reversi, tvb(), "Reversi Protocol (text)")
    local text = tvb:raw()
    local offset = 0
    for line in text:gmatch("([^\n]*)\n?") do
        if offset >= #text then
            break
        end
        local len = math.min(#line + 1, #text - offset)
        item:add(f.line, tvb(offset, len), line)
        show_info(pinfo, line)
        offset = offset + len
    end
    return tvb:len()
end

function reversi.dissector(tvb, pinfo, tree)
    pinfo.cols.protocol = "Reversi"
    first_in_segment = true
    local state = stream_state(tvb, pinfo)
    if state ~= nil and not state.binary then
        return dissect_text(tvb, pinfo, tree)
    end
    dissect_tcp_pdus(tvb, tree, 2, pdu_length, dissect_pdu, true)
    return tvb:len()
end

local function heuristic(tvb, pinfo, tree)
    local seq = tcp_seq()
    if seq == nil or seq.value ~= 1 or not starts_with_connect(tvb) then
        return false
    end
    pinfo.conversation = reversi
    reversi.dissector(tvb, pinfo, tree)
    return true
end

local current_port = reversi.prefs.port
DissectorTable.get("tcp.port"):add(current_port, reversi)
reversi:register_heuristic("tcp", heuristic)

function reversi.prefs_changed()
    if current_port ~= reversi.prefs.port then
        local ports = DissectorTable.get("tcp.port")
        ports:remove(current_port, reversi)
        current_port = reversi.prefs.port
        ports:add(current_port, reversi)
    end
end

function reversi.init()
    streams = {}
end
