// cavsim real-time channel program: one ns-3 node per vehicle, each joined to the vehicle's host
// tap device by a TapBridge in UseBridge mode (thesis figure 4.2), on a CSMA bus or on the
// `latency` channel (ns3-scripts/lib/latency-channel.h); or on 802.11p, whose ad-hoc devices
// cannot SendFrom, through TapBridge's UseLocal mode, with the cars' positions fed over UDP.
//
// argv contract (docs/ns3-argv-contract.md):
//   --taps=tap-a,tap-b,...  host tap devices, one per vehicle, each already a port of a bridge
//   --channel=csma          csma | latency
//   --delay=10ms            one-way delay (any ns3::Time string)
//   --jitter=0ms            latency: per-frame extra delay, uniform in [0, jitter]
//   --dataRate=100Mbps      data rate (any ns3::DataRate string): of the bus, or of each sender
//   --loss=0                per-receiver frame loss probability
//   --run=1                 ns-3's RNG run number (cavsim passes the scenario's seed)
//   --txPower, --propagation, --obstacles, --antennaHeight, --noiseFigure, --rate, --shadowing,
//   --noiseFloor, --csThreshold: wifi-80211p, as the lock-step program takes them (docs/ns3-lockstep-protocol.md)
//   --macs=m0,m1,...        each vehicle's MAC in tap order (wifi: the radio takes it; wired: where unicasts go)
//   --duration=0            seconds to run; 0 runs until SIGTERM
//   --frameLog=PATH         optional diagnostics: wall-clock timings of every frame (see below)
//   --outcomes=PATH         every cavsim frame lost at an intended receiver, as it happens:
//                           "lost <id> <node> <reason> <rx_dbm|nan> <los:1|0|->" (reasons as in src/channel/frames.ts)
// stdin (optional): "delay <ns> <jitter_ns>" sets csma's or latency's delay for frames sent from then
//   on, answered by "CAVSIM-DELAY ns=<ns> jitter_ns=<ns>" (the host's stack-share calibration).
// stdout: "CAVSIM-POSITIONS port=<p>" (wifi: where positions go), "CAVSIM-READY" once every tap is attached; "CAVSIM-LAG sim_s=<t> lag_ms=<x>" each second.
#include "lib/csma-channel.h"
#include "lib/frame-outcomes.h"
#include "lib/latency-channel.h"
#include "lib/position-feed.h"
#include "lib/wifi-80211p.h"
#include "lib/wifi-outcomes.h"

#include "ns3/core-module.h"
#include "ns3/csma-module.h"
#include "ns3/network-module.h"
#include "ns3/tap-bridge-module.h"

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>

#include <algorithm>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

using namespace ns3;

namespace
{

std::vector<std::string>
SplitCommaList(const std::string& text)
{
    std::vector<std::string> items;
    std::stringstream stream(text);
    std::string item;
    while (std::getline(stream, item, ','))
    {
        if (!item.empty())
        {
            items.push_back(item);
        }
    }
    return items;
}

// The realtime scheduler's own wall clock, in simulated-time units: an event at simulated time t
// runs when this reaches t.
int64_t
RealtimeNs()
{
    static Ptr<RealtimeSimulatorImpl> impl = DynamicCast<RealtimeSimulatorImpl>(Simulator::GetImplementation());
    return impl->RealtimeNow().GetNanoSeconds();
}

int64_t
EpochNs()
{
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// --frameLog: one line per frame event, for finding where emulation time goes.
//   origin <epoch_ns>                                  epoch time of simulated time 0
//   tx <epoch_ns> <sim_ns> <node> <id>                 frame read from a tap handed to the CSMA device
//   rx <epoch_ns_before> <epoch_ns_after> <sim_ns> <node> <id>   frame written to a tap (around write())
// <id> is the cavsim datagram id when the frame carries one, else other/<ethertype>/<source MAC>><destination MAC>.
std::ofstream g_frameLog;

std::string
FrameLabel(Ptr<const Packet> packet, uint16_t protocol, const Address& src, const Address& dst)
{
    uint32_t size = std::min<uint32_t>(packet->GetSize(), 1024);
    std::string bytes(size, '\0');
    packet->CopyData(reinterpret_cast<uint8_t*>(&bytes[0]), size);
    static const std::string key = "\"id\":\"";
    std::size_t start = bytes.find(key);
    std::size_t end = start == std::string::npos ? start : bytes.find('"', start + key.size());
    if (end == std::string::npos)
    {
        std::ostringstream other;
        other << "other/" << std::hex << protocol << '/' << Mac48Address::ConvertFrom(src) << '>' << Mac48Address::ConvertFrom(dst);
        return other.str();
    }
    return bytes.substr(start + key.size(), end - start - key.size());
}

std::ofstream g_outcomes;

// Losses only: the receiving vehicle itself logs what arrives.
void
WriteLoss(const cavsim::TrackedFrame& frame, uint32_t node, const std::string* reason, const std::string& power, const std::string& los)
{
    if (reason != nullptr && g_outcomes.is_open())
    {
        g_outcomes << "lost " << frame.label << ' ' << node << ' ' << *reason << ' ' << power << ' ' << los << std::endl;
    }
}

// Starts tracking a frame that carries a cavsim datagram, once (a retransmission is the same
// frame). `owner` is the node of the destination MAC, -1 if unknown.
std::set<uint64_t> g_tracked;

void
TrackDatagram(Ptr<const Packet> packet, const std::string& label, uint32_t from, bool broadcast, int64_t owner, uint32_t nodes)
{
    if (label.rfind("other/", 0) == 0 || (!broadcast && owner < 0) || !g_tracked.insert(packet->GetUid()).second)
    {
        return;
    }
    cavsim::TrackedFrame frame;
    frame.label = label;
    frame.from = from;
    frame.broadcast = broadcast;
    for (uint32_t n = 0; n < nodes; ++n)
    {
        if (n != from && (broadcast || static_cast<int64_t>(n) == owner))
        {
            frame.open.insert(n);
        }
    }
    cavsim::TrackFrame(packet->GetUid(), frame);
}

// A frame a node put on the channel: learns which node owns its source MAC, starts tracking its
// datagram for loss reports, and logs it when a frame log was asked for.
void
NoteSent(Ptr<const Packet> frame, uint16_t protocol, Mac48Address from, Mac48Address to, uint32_t node);

// A vehicle NIC keeps only frames addressed to it (or broadcast/multicast). TapBridge in UseBridge
// mode hands every frame on the bus to its tap, so with N vehicles each frame was written to N-1
// taps and crossed N-1 host bridges one after another in the simulator thread, delaying the copy
// that mattered. This bridge learns which vehicle MACs sit behind its own tap (from the frames
// its node sends) and writes a unicast frame only to the tap whose vehicle owns the destination;
// a destination nobody has sent from yet is flooded, as a learning switch would.
class AddressFilteringTapBridge : public TapBridge
{
  public:
    static std::map<Mac48Address, uint32_t>& Owners()
    {
        static std::map<Mac48Address, uint32_t> owners;
        return owners;
    }

    void Attach(Ptr<NetDevice> device)
    {
        SetBridgedNetDevice(device);
        m_index = device->GetNode()->GetId();
        device->SetPromiscReceiveCallback(MakeCallback(&AddressFilteringTapBridge::Deliver, this));
        device->TraceConnectWithoutContext("MacTx", MakeCallback(&AddressFilteringTapBridge::Sent, this));
    }

  private:
    void Sent(Ptr<const Packet> frame)
    {
        EthernetHeader header(false);
        frame->PeekHeader(header);
        NoteSent(frame, header.GetLengthType(), header.GetSource(), header.GetDestination(), m_index);
    }

    bool Deliver(Ptr<NetDevice> device,
                 Ptr<const Packet> packet,
                 uint16_t protocol,
                 const Address& src,
                 const Address& dst,
                 NetDevice::PacketType type)
    {
        if (type == NetDevice::PACKET_OTHERHOST)
        {
            auto owner = Owners().find(Mac48Address::ConvertFrom(dst));
            if (owner != Owners().end() && owner->second != m_index)
            {
                return true;
            }
        }
        cavsim::ReportDelivered(packet->GetUid(), m_index);
        if (!g_frameLog.is_open())
        {
            return ReceiveFromBridgedDevice(device, packet, protocol, src, dst, type);
        }
        int64_t before = EpochNs();
        bool done = ReceiveFromBridgedDevice(device, packet, protocol, src, dst, type);
        g_frameLog << "rx " << before << ' ' << EpochNs() << ' ' << Simulator::Now().GetNanoSeconds() << ' ' << m_index
                   << ' ' << FrameLabel(packet, protocol, src, dst) << '\n';
        return done;
    }

    uint32_t m_index = 0;
};

void
NoteSent(Ptr<const Packet> frame, uint16_t protocol, Mac48Address from, Mac48Address to, uint32_t node)
{
    auto& owners = AddressFilteringTapBridge::Owners();
    owners[from] = node;
    if (g_outcomes.is_open())
    {
        auto owner = owners.find(to);
        TrackDatagram(frame, FrameLabel(frame, protocol, from, to), node, to.IsBroadcast() || to.IsGroup(), owner == owners.end() ? -1 : owner->second,
                      NodeList::GetNNodes());
    }
    if (g_frameLog.is_open())
    {
        g_frameLog << "tx " << EpochNs() << ' ' << Simulator::Now().GetNanoSeconds() << ' ' << node << ' ' << FrameLabel(frame, protocol, from, to) << '\n';
    }
}

// The realtime scheduler sleeps on a timed futex until the next event, and a timer wake-up on a
// busy or virtualised host comes tens of microseconds late. A frame's delivery time is known as
// soon as its transmission ends (end + delay), so an event just before it spins on the clock and
// hands over on time. Costs at most kSpinAhead of CPU per frame; the bus carries one frame per delay.
const Time kSpinAhead = MicroSeconds(200);

void
SpinUntil(int64_t simNs)
{
    while (RealtimeNs() < simNs)
    {
    }
}

void
SpinBeforeDeliveryIn(Time delay)
{
    Time ahead = std::min(kSpinAhead, delay / 2);
    Simulator::Schedule(delay - ahead, &SpinUntil, (Simulator::Now() + delay).GetNanoSeconds());
}

// csma's delay as the channel has it now (the host may change it once at run start).
Time g_csmaDelay;

void
SpinBeforeDelivery(Ptr<const Packet>)
{
    if (g_csmaDelay.IsStrictlyPositive())
    {
        SpinBeforeDeliveryIn(g_csmaDelay);
    }
}

// The host's calibration takes the measured stack share out of the channel's delay: it probes the
// whole path with a small delay first, then says the delay to apply for the run on stdin.
Channel* g_channel = nullptr;

void
ApplyDelay(int64_t delayNs, int64_t jitterNs)
{
    Ptr<Channel> channel(g_channel);
    if (auto latency = DynamicCast<cavsim::JitteredSimpleChannel>(channel))
    {
        latency->SetDelay(NanoSeconds(delayNs), NanoSeconds(jitterNs));
    }
    else
    {
        g_csmaDelay = NanoSeconds(delayNs);
        channel->SetAttribute("Delay", TimeValue(g_csmaDelay));
    }
    std::cout << "CAVSIM-DELAY ns=" << delayNs << " jitter_ns=" << jitterNs << std::endl;
}

// Reads "delay <ns> <jitter_ns>" lines until stdin closes (at once when the host gave none).
void
ReadDelayCommands(Ptr<Channel> channel)
{
    g_channel = PeekPointer(channel); // the devices keep it alive; the reader thread copies no Ptr
    std::thread([]() {
        std::string line;
        while (std::getline(std::cin, line))
        {
            std::istringstream words(line);
            std::string verb;
            int64_t delayNs = -1;
            int64_t jitterNs = 0;
            if (words >> verb >> delayNs >> jitterNs && verb == "delay" && delayNs >= 0 && jitterNs >= 0)
            {
                Simulator::ScheduleWithContext(Simulator::NO_CONTEXT, Seconds(0), &ApplyDelay, delayNs, jitterNs);
            }
            else
            {
                std::cerr << "channel-tap: ignored stdin line '" << line << "' (expected: delay <ns> <jitter_ns>)" << std::endl;
            }
        }
    }).detach();
}

// Realtime scheduling lets the simulator thread and the tap readers run the moment a frame or a
// timer is due instead of waiting behind other work on the host. Only root (CAP_SYS_NICE) may; an
// unprivileged run keeps normal priority. The program sleeps between events, so it never holds a
// CPU for long, and the kernel's realtime throttling bounds it in any case.
std::string
RaisePriority()
{
    sched_param param{};
    param.sched_priority = 1;
    if (sched_setscheduler(0, SCHED_FIFO, &param) == 0)
    {
        return "SCHED_FIFO 1";
    }
    return std::string("normal (SCHED_FIFO refused: ") + std::strerror(errno) + ")";
}

// SIGTERM/SIGINT stop the simulation in the simulator's own thread, so it ends the way a timed run
// does: the frame log is flushed and the taps are closed. (Every thread blocks them; one waits.)
void
StopOnSignal()
{
    sigset_t signals;
    sigemptyset(&signals);
    sigaddset(&signals, SIGTERM);
    sigaddset(&signals, SIGINT);
    pthread_sigmask(SIG_BLOCK, &signals, nullptr);
    std::thread([signals]() {
        int received = 0;
        sigwait(&signals, &received);
        Simulator::ScheduleWithContext(Simulator::NO_CONTEXT, Seconds(0), MakeEvent(static_cast<void (*)()>(&Simulator::Stop)));
    }).detach();
}

void
AnnounceReady()
{
    if (g_frameLog.is_open())
    {
        g_frameLog << "origin " << EpochNs() - RealtimeNs() << '\n';
    }
    std::cout << "CAVSIM-READY" << std::endl;
}

// In realtime mode an event runs when the wall clock reaches its timestamp; how late it runs
// relative to the simulated clock is the lag the channel added on top of the model.
void
ReportLag()
{
    double lagMs = (RealtimeNs() - Simulator::Now().GetNanoSeconds()) / 1e6;
    std::cout << "CAVSIM-LAG sim_s=" << Simulator::Now().GetSeconds() << " lag_ms=" << lagMs << std::endl;
    if (g_frameLog.is_open())
    {
        g_frameLog.flush();
    }
    Simulator::Schedule(Seconds(1), &ReportLag);
}

// A wifi frame is tracked when its first attempt goes on the air: data frames carrying a datagram.
void
TrackWifiFrame(const NetDeviceContainer* devices, uint32_t node, Ptr<const Packet> psdu, double)
{
    if (!g_outcomes.is_open())
    {
        return;
    }
    WifiMacHeader header;
    psdu->PeekHeader(header);
    if (!header.IsData())
    {
        return;
    }
    Mac48Address to = header.GetAddr1();
    int64_t owner = -1;
    for (uint32_t i = 0; i < devices->GetN(); ++i)
    {
        if (Mac48Address::ConvertFrom(devices->Get(i)->GetAddress()) == to)
        {
            owner = i;
        }
    }
    TrackDatagram(psdu, FrameLabel(psdu, 0, header.GetAddr2(), to), node, to.IsGroup(), owner, devices->GetN());
}

// The shadowing's random stream, clear of the devices' (from 100).
const int64_t kShadowingStream = 2000;

// 802.11p: ad-hoc devices cannot SendFrom, so each tap is bridged in UseLocal mode (the device
// takes the MAC of the one vehicle behind the tap); positions arrive on the feed.
int
RunWifi(const NodeContainer& nodes,
        const std::vector<std::string>& tapNames,
        const std::vector<std::string>& macs,
        const cavsim::WifiSettings& wifi,
        double duration)
{
    MobilityHelper mobility;
    mobility.SetMobilityModel("ns3::ConstantVelocityMobilityModel");
    mobility.Install(nodes);
    cavsim::WifiChannelParts propagation;
    try
    {
        propagation = cavsim::BuildPropagation(wifi);
    }
    catch (const std::exception& e)
    {
        std::cerr << "channel-tap: " << e.what() << std::endl;
        return 2;
    }
    if (wifi.shadowingDb > 0)
    {
        propagation.last->AssignStreams(kShadowingStream); // the shadowing link, last before the probe
    }
    propagation.last->SetNext(CreateObject<cavsim::PowerProbe>());
    static NetDeviceContainer devices;
    devices = cavsim::InstallWifi80211p(nodes, wifi, propagation.first);
    WifiHelper().AssignStreams(devices, 100);
    for (uint32_t i = 0; i < devices.GetN(); ++i)
    {
        DynamicCast<WifiNetDevice>(devices.Get(i))->GetPhy()->TraceConnectWithoutContext("PhyTxBegin", MakeBoundCallback(&TrackWifiFrame, &devices, i));
    }
    cavsim::ConnectWifiOutcomes(devices, propagation.grid.get(), wifi);
    for (std::size_t i = 0; i < tapNames.size(); ++i)
    {
        cavsim::SetNodeMotion(nodes.Get(i), 0, 0, 0, 0, wifi.antennaHeight);
        // The device answers (ACKs) for its vehicle's MAC from the start, not only once that
        // vehicle has sent a frame (UseLocal adopts the MAC of the first frame it reads).
        if (i < macs.size())
        {
            devices.Get(i)->SetAddress(Mac48Address(macs[i].c_str()));
        }
        Ptr<AddressFilteringTapBridge> bridge = CreateObject<AddressFilteringTapBridge>();
        bridge->SetAttribute("Mode", StringValue("UseLocal"));
        bridge->SetAttribute("DeviceName", StringValue(tapNames[i]));
        nodes.Get(i)->AddDevice(bridge);
        bridge->Attach(devices.Get(i));
    }
    uint16_t port = cavsim::StartPositionFeed(nodes, wifi.antennaHeight);
    std::cout << "CAVSIM-POSITIONS port=" << port << std::endl;
    Simulator::Schedule(MilliSeconds(1), &AnnounceReady);
    Simulator::Schedule(MilliSeconds(1) + Seconds(1), &ReportLag);
    if (duration > 0)
    {
        Simulator::Stop(Seconds(duration));
    }
    StopOnSignal();
    Simulator::Run();
    Simulator::Destroy();
    return 0;
}

} // namespace

int
main(int argc, char* argv[])
{
    std::string taps;
    std::string kind = "csma";
    std::string delay = "10ms";
    std::string jitter = "0ms";
    std::string dataRate = "100Mbps";
    double loss = 0;
    uint32_t run = 1;
    double duration = 0;
    std::string frameLog;
    std::string outcomes;

    CommandLine cmd(__FILE__);
    cmd.AddValue("taps", "comma-separated host tap devices, one per vehicle", taps);
    cmd.AddValue("channel", "csma | latency", kind);
    cmd.AddValue("delay", "channel propagation delay", delay);
    cmd.AddValue("jitter", "latency: extra delay per frame, uniform in [0, jitter]", jitter);
    cmd.AddValue("loss", "per-receiver frame loss probability", loss);
    cmd.AddValue("run", "ns-3 RNG run number", run);
    cavsim::WifiSettings wifi;
    cavsim::AddWifiFlags(cmd, wifi);
    std::string macs;
    cmd.AddValue("macs", "each vehicle's MAC, in tap order", macs);
    cmd.AddValue("dataRate", "channel data rate", dataRate);
    cmd.AddValue("duration", "seconds to run, 0 = until SIGTERM", duration);
    cmd.AddValue("frameLog", "diagnostics: write per-frame wall-clock timings to this file", frameLog);
    cmd.AddValue("outcomes", "write each frame lost at an intended receiver, with the reason, to this file", outcomes);
    cmd.Parse(argc, argv);
    cavsim::ApplyCarrierSenseThreshold(wifi);

    std::vector<std::string> tapNames = SplitCommaList(taps);
    if (tapNames.empty())
    {
        std::cerr << "channel-tap: --taps must name at least one tap device" << std::endl;
        return 2;
    }
    if (kind != "csma" && kind != "latency" && kind != "wifi-80211p")
    {
        std::cerr << "channel-tap: --channel must be csma, latency or wifi-80211p, not '" << kind << "'" << std::endl;
        return 2;
    }
    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(run);
    if (!frameLog.empty())
    {
        g_frameLog.open(frameLog);
        if (!g_frameLog)
        {
            std::cerr << "channel-tap: cannot write --frameLog=" << frameLog << std::endl;
            return 2;
        }
    }

    if (!outcomes.empty())
    {
        g_outcomes.open(outcomes);
        if (!g_outcomes)
        {
            std::cerr << "channel-tap: cannot write --outcomes=" << outcomes << std::endl;
            return 2;
        }
        cavsim::Outcomes().sink = &WriteLoss;
    }

    // A timed sleep may end up to the thread's timer slack late (50 us by default, so the kernel can
    // batch wake-ups); for an emulator that is pure added latency. Set before any thread exists,
    // so TapBridge's tap readers inherit it, as they inherit the scheduling policy.
    prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
    std::cerr << "channel-tap: scheduling " << RaisePriority() << std::endl;

    GlobalValue::Bind("SimulatorImplementationType", StringValue("ns3::RealtimeSimulatorImpl"));
    GlobalValue::Bind("ChecksumEnabled", BooleanValue(true));

    NodeContainer nodes;
    nodes.Create(tapNames.size());

    Time channelDelay(delay);
    g_csmaDelay = channelDelay;
    NetDeviceContainer devices;
    int64_t stream = 100;
    if (kind == "csma")
    {
        devices = cavsim::InstallCsmaChannel(nodes, channelDelay, DataRate(dataRate), loss, stream);
        cavsim::ConnectWiredOutcomes(devices, true);
    }
    else if (kind == "latency")
    {
        devices = cavsim::InstallLatencyChannel(nodes, {channelDelay, Time(jitter), DataRate(dataRate), loss}, stream);
        cavsim::ConnectWiredOutcomes(devices, false);
        auto channel = DynamicCast<cavsim::JitteredSimpleChannel>(devices.Get(0)->GetChannel());
        channel->SetHooks(&NoteSent, [](Time delay) {
            if (delay.IsStrictlyPositive())
            {
                SpinBeforeDeliveryIn(delay);
            }
        });
    }
    else
    {
        return RunWifi(nodes, tapNames, SplitCommaList(macs), wifi, duration);
    }

    std::vector<std::string> vehicleMacs = SplitCommaList(macs);
    for (std::size_t i = 0; i < vehicleMacs.size() && i < tapNames.size(); ++i)
    {
        AddressFilteringTapBridge::Owners()[Mac48Address(vehicleMacs[i].c_str())] = i;
    }
    for (std::size_t i = 0; i < tapNames.size(); ++i)
    {
        Ptr<AddressFilteringTapBridge> bridge = CreateObject<AddressFilteringTapBridge>();
        bridge->SetAttribute("Mode", StringValue("UseBridge"));
        bridge->SetAttribute("DeviceName", StringValue(tapNames[i]));
        nodes.Get(i)->AddDevice(bridge);
        Ptr<NetDevice> device = devices.Get(i);
        bridge->Attach(device);
        // CSMA says when a frame's transmission ends, so its delivery time is known in advance.
        if (kind == "csma")
        {
            device->TraceConnectWithoutContext("PhyTxEnd", MakeCallback(&SpinBeforeDelivery));
        }
    }

    Simulator::Schedule(MilliSeconds(1), &AnnounceReady);
    Simulator::Schedule(MilliSeconds(1) + Seconds(1), &ReportLag);
    if (duration > 0)
    {
        Simulator::Stop(Seconds(duration));
    }
    StopOnSignal(); // before Run starts the tap reader threads, which inherit the blocked signals
    ReadDelayCommands(devices.Get(0)->GetChannel());
    Simulator::Run();
    Simulator::Destroy();
    g_frameLog.close();
    return 0;
}
